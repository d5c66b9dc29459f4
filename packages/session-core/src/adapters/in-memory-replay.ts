import type { SessionEvent } from "../ports/session-store.js";
import type { SessionMessage } from "../schema/messages.js";

/**
 * A logged event as the replay log gives it back (the `SessionStore.listEvents` contract, parts as
 * rows in Postgres, DESIGN §10.6): a `part` mutation, or a whole assistant message, carries its
 * parts as they are stored now, not as they were when it was logged.
 */
export function replayedEvents(
  events: readonly SessionEvent[],
  messages: ReadonlyMap<string, SessionMessage>,
): SessionEvent[] {
  return events.map((event) => {
    const { mutation } = event;
    return replayedEvent(event, "message_id" in mutation ? messages.get(mutation.message_id) : undefined);
  });
}

function replayedEvent(event: SessionEvent, stored: SessionMessage | undefined): SessionEvent {
  const { mutation } = event;
  if (stored?.type !== "assistant") return event;
  if (mutation.variant === "part") {
    const part = stored.parts.find((candidate) => candidate.part_id === mutation.part_id);
    return part ? { ...event, mutation: { ...mutation, part } } : event;
  }
  if (mutation.variant === "message" && mutation.message.type === "assistant") {
    const held = new Set(mutation.message.parts.map((part) => part.part_id));
    const parts = stored.parts.filter((part) => held.has(part.part_id));
    return { ...event, mutation: { ...mutation, message: { ...mutation.message, parts } } };
  }
  return event;
}
