import type { InteractionEvent, SessionEvent } from "./session-store.js";

export interface EventBusListener {
  onSessionEvent?(event: SessionEvent): void;
  onInteractionEvent?(event: InteractionEvent): void;
}

/**
 * Carries committed events to every process. Publish only after the commit; a listener sees each
 * event at most once per subscription and, per session, in `event_id` order. A listener that throws
 * affects neither persistence nor other listeners. The Postgres implementation uses LISTEN/NOTIFY;
 * readers that need "no gap" combine a subscription with `SessionStore.listEvents`.
 */
export interface EventBus {
  publish(events: { session_events: SessionEvent[]; interaction_events: InteractionEvent[] }): Promise<void>;
  subscribe(listener: EventBusListener): () => void;
}
