import { type AdminInteractionEvent, adminOnInteractionInputSchema } from "@parley/session-core/contract";
import { tracked } from "@trpc/server";
import { toTRPCError } from "../errors.js";
import { interactionEventSource } from "../subscriptions/event-sources.js";
import { parseLastEventId } from "../subscriptions/last-event-id.js";
import { streamOrderedEvents } from "../subscriptions/ordered-event-stream.js";
import { adminProcedure } from "../trpc.js";

/**
 * Every interaction created, answered or cancelled in any session, as
 * `tracked(String(event_id), event)` from one global sequence; resumes after `lastEventId`. With
 * `announce_start`, an untracked `{ started: true, last_event_id }` follows the replay.
 */
export const adminOnInteraction = adminProcedure
  .input(adminOnInteractionInputSchema)
  .subscription(async function* ({ ctx, input, signal }) {
    try {
      const events = streamOrderedEvents({
        source: interactionEventSource(ctx.services.store, ctx.services.bus),
        after_event_id: parseLastEventId(input?.lastEventId),
        signal,
        announce_start: input?.announce_start === true,
      });
      for await (const event of events) {
        if ("started" in event) {
          yield event;
          continue;
        }
        const payload: AdminInteractionEvent = {
          event_id: event.event_id,
          kind: event.kind,
          session_id: event.session_id,
          interaction: event.interaction,
        };
        yield tracked(String(event.event_id), payload);
      }
    } catch (error) {
      throw toTRPCError(error);
    }
  });
