import { adminOnInteractionInputSchema } from "@parley/session-core/contract";
import { toTRPCError } from "../errors.js";
import { interactionFeed } from "../subscriptions/interaction-feed.js";
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
      const { store, bus } = ctx.services;
      yield* interactionFeed({ store, bus, input, signal, includes: () => true });
    } catch (error) {
      throw toTRPCError(error);
    }
  });
