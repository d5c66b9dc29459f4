import type { SessionMutation } from "@parley/session-core";
import { sessionOnMutationInputSchema } from "@parley/session-core/contract";
import { tracked } from "@trpc/server";
import { toTRPCError } from "../errors.js";
import { findVisibleSession } from "../session-access.js";
import { isLiveSessionEvent, sessionEventSource } from "../subscriptions/event-sources.js";
import { parseLastEventId } from "../subscriptions/last-event-id.js";
import { streamOrderedEvents } from "../subscriptions/ordered-event-stream.js";
import { authedProcedure } from "../trpc.js";

/**
 * Every committed mutation of one session as `tracked(String(event_id), mutation)`. With
 * `lastEventId` it first replays the log after that id (`"0"`: everything); without it only later
 * mutations. Reconnecting clients resume with no gap and no duplicate. With `announce_start`, an
 * untracked `{ started: true, last_event_id }` follows the replay, before any new mutation. A live
 * mutation (`live: true`, §10.6) is tracked with the id of the durable event it follows: a client
 * that reconnects from it gets the durable events after that one, never the live mutation again.
 */
export const sessionOnMutation = authedProcedure
  .input(sessionOnMutationInputSchema)
  .subscription(async function* ({ ctx, input, signal }) {
    try {
      await findVisibleSession(ctx, input.session_id);
      const events = streamOrderedEvents({
        source: sessionEventSource(ctx.services.store, ctx.services.bus, input.session_id),
        after_event_id: parseLastEventId(input.lastEventId),
        signal,
        announce_start: input.announce_start === true,
        isLive: isLiveSessionEvent,
      });
      for await (const event of events) {
        if ("started" in event) yield event;
        else yield tracked(String(event.event_id), event.mutation as SessionMutation);
      }
    } catch (error) {
      throw toTRPCError(error);
    }
  });
