import type { InteractionEvent, SessionEvent } from "./session-store.js";

export interface EventBusListener {
  /**
   * Set: the listener hears only this session's events (the bus routes by session, it does not ask
   * every listener). Unset: it hears every session's events.
   */
  session_id?: string;
  onSessionEvent?(event: SessionEvent): void;
  onInteractionEvent?(event: InteractionEvent): void;
  /**
   * Called after the bus lost its connection and got it back: notices sent meanwhile may be gone,
   * so a listener that must see every event reads the log (`SessionStore.listEvents`) after the last
   * id it received. The bus itself catches up the sessions it is tracking before calling this.
   */
  onResync?(): void;
}

/**
 * Carries committed events to every process. Publish only after the commit; a listener sees each
 * event at most once per subscription and, per session, in `event_id` order. A listener that throws
 * affects neither persistence nor other listeners. Listeners of one process may be handed the same
 * event object: they must treat it as read-only. The Postgres implementation uses LISTEN/NOTIFY, the
 * NATS one core pub/sub; both carry only ids and read the rows, so a notice cannot outrun its commit.
 * Readers that need "no gap" combine a subscription with `SessionStore.listEvents`.
 */
export interface EventBus {
  publish(events: { session_events: SessionEvent[]; interaction_events: InteractionEvent[] }): Promise<void>;
  subscribe(listener: EventBusListener): () => void;
}
