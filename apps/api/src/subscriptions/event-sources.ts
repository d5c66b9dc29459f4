import type { EventBus, InteractionEvent, SessionEvent, SessionStore } from "@parley/session-core";
import type { OrderedEventSource } from "./ordered-event-stream.js";

/** One session's replay log (`session_events`) plus its live events on the bus. */
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
      }),
    readAfter: (after_event_id, limit) => store.listEvents(session_id, after_event_id, limit),
  };
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
