import {
  type EventBus,
  type InteractionEvent,
  isLiveMutation,
  type SessionEvent,
  type SessionStore,
} from "@parley/session-core";
import type { OrderedEventSource } from "./ordered-event-stream.js";

/**
 * One session's replay log (`session_events`) plus its new events on the bus, and its live
 * mutations (§10.6) as events with the `event_id` they follow (`isLiveSessionEvent`).
 */
export function sessionEventSource(
  store: SessionStore,
  bus: EventBus,
  session_id: string,
): OrderedEventSource<SessionEvent> {
  return {
    listen: (push, resync) =>
      bus.subscribe({
        session_id,
        onResync: resync,
        onSessionEvent(event) {
          if (event.session_id === session_id) push(event);
        },
        onLiveMutation(mutation) {
          if (mutation.session_id === session_id) push({ session_id, event_id: mutation.event_id, mutation });
        },
      }),
    readAfter: (after_event_id, limit) => store.listEvents(session_id, after_event_id, limit),
  };
}

/** A live mutation pushed by `sessionEventSource` (never read from the log). */
export function isLiveSessionEvent(event: SessionEvent): boolean {
  return isLiveMutation(event.mutation);
}

/** The global admin feed (`interaction_events`) plus its live events on the bus. */
export function interactionEventSource(
  store: SessionStore,
  bus: EventBus,
): OrderedEventSource<InteractionEvent> {
  return {
    listen: (push, resync) => bus.subscribe({ onInteractionEvent: push, onResync: resync }),
    readAfter: (after_event_id, limit) => store.listInteractionEvents(after_event_id, limit),
  };
}
