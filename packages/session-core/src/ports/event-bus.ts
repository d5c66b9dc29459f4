import type { SessionMutation } from "../schema/mutation.js";
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
   * A live mutation of the session (`live: true`, DESIGN §10.6), never committed. It follows the
   * durable event whose id it carries: the bus hands it over after that event and before the next
   * one, or not at all (it drops one that a later durable event already covers).
   */
  onLiveMutation?(mutation: SessionMutation): void;
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
 * NATS one core pub/sub; both carry only ids of durable events and read the rows, so a notice cannot
 * outrun its commit (live mutations, never committed, ride them whole: `publishLive`).
 * Readers that need "no gap" combine a subscription with `SessionStore.listEvents`.
 */
export interface EventBus {
  publish(events: { session_events: SessionEvent[]; interaction_events: InteractionEvent[] }): Promise<void>;
  /**
   * Sends a live mutation (§10.6) to the session's listeners in every process, without a commit:
   * this process's listeners before it returns, others' as soon as the transport carries it. Best
   * effort: never persisted, never replayed; a transport may drop one it cannot carry (the next
   * checkpoint carries its persisted form).
   */
  publishLive(mutation: SessionMutation): void;
  subscribe(listener: EventBusListener): () => void;
}
