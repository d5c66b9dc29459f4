import type { EventBus, SessionStore } from "@parley/session-core";
import type { InteractionFeedEvent } from "@parley/session-core/contract";
import { tracked } from "@trpc/server";
import { interactionEventSource } from "./event-sources.js";
import { parseLastEventId } from "./last-event-id.js";
import { streamOrderedEvents } from "./ordered-event-stream.js";

/**
 * The global interaction log (`admin.onInteraction`, `session.onInteraction`) as
 * `tracked(String(event_id), event)`, resuming after `lastEventId`, keeping only the events of
 * sessions `includes` accepts. With `announce_start`, an untracked `{ started: true, last_event_id }`
 * follows the replay.
 */
export async function* interactionFeed(options: {
  store: SessionStore;
  bus: EventBus;
  input: { lastEventId?: string | null; announce_start?: boolean } | undefined;
  signal: AbortSignal | undefined;
  includes: (session_id: string) => boolean | Promise<boolean>;
}) {
  const events = streamOrderedEvents({
    source: interactionEventSource(options.store, options.bus),
    after_event_id: parseLastEventId(options.input?.lastEventId),
    signal: options.signal,
    announce_start: options.input?.announce_start === true,
  });
  for await (const event of events) {
    if ("started" in event) {
      yield event;
      continue;
    }
    if (!(await options.includes(event.session_id))) continue;
    const payload: InteractionFeedEvent = {
      event_id: event.event_id,
      kind: event.kind,
      session_id: event.session_id,
      interaction: event.interaction,
    };
    yield tracked(String(event.event_id), payload);
  }
}
