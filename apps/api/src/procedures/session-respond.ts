import { interactionResultSchema } from "@parley/session-core";
import { sessionRespondInputSchema } from "@parley/session-core/contract";
import { openVisibleSession } from "../session-access.js";
import { authedProcedure } from "../trpc.js";

/** Answers a pending interaction as the caller (recorded as `responded_by`); the Turn resumes. */
export const sessionRespond = authedProcedure
  .input(sessionRespondInputSchema)
  .output(interactionResultSchema)
  .mutation(async ({ ctx, input }) => {
    const session = await openVisibleSession(ctx, input.session_id);
    return session.respond(
      { interaction_id: input.interaction_id, response: input.response },
      { user_id: ctx.user.user_id },
    );
  });
