import { sessionInteractionsOutputSchema, sessionTargetInputSchema } from "@parley/session-core/contract";
import { openVisibleSession } from "../session-access.js";
import { authedProcedure } from "../trpc.js";

/** The bare `request` of every pending interaction, in occurrence order. */
export const sessionInteractions = authedProcedure
  .input(sessionTargetInputSchema)
  .output(sessionInteractionsOutputSchema)
  .query(async ({ ctx, input }) => {
    const session = await openVisibleSession(ctx, input.session_id);
    return session.interactions();
  });
