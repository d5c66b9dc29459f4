import type { InteractionEvent, InteractionRecord, SessionEvent } from "../ports/session-store.js";
import type { SessionMessage } from "../schema/messages.js";

/**
 * A logged event as the replay log gives it back (the `SessionStore.listEvents` contract, parts as
 * rows in Postgres, DESIGN §10.6): a `part` mutation carries its part, a `message` mutation its
 * message, as they are stored now, not as they were when it was logged.
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
  if (stored === undefined) return event;
  if (mutation.variant === "message") return { ...event, mutation: { ...mutation, message: stored } };
  if (mutation.variant === "part" && stored.type === "assistant") {
    const part = stored.parts.find((candidate) => candidate.part_id === mutation.part_id);
    return part ? { ...event, mutation: { ...mutation, part } } : event;
  }
  return event;
}

/**
 * Admin-feed entries as the feed gives them back (`SessionStore.listInteractionEvents`): each with
 * its Interaction as its index row holds it now (the Postgres feed references the row).
 */
export function replayedInteractionEvents(
  events: readonly InteractionEvent[],
  records: ReadonlyMap<string, InteractionRecord>,
): InteractionEvent[] {
  return events.map((event) => {
    const record = records.get(event.interaction.interaction_id);
    return record && record.session_id === event.session_id
      ? { ...event, interaction: record.interaction }
      : event;
  });
}
