import { sessionCloseOutputSchema, sessionTargetInputSchema } from "@parley/session-core/contract";
import { openVisibleSession } from "../session-access.js";
import { authedProcedure } from "../trpc.js";

/** Ends the session: stops its Turn, cancels pending interactions (`session_disposed`). */
export const sessionClose = authedProcedure
  .input(sessionTargetInputSchema)
  .output(sessionCloseOutputSchema)
  .mutation(async ({ ctx, input }) => {
    const session = await openVisibleSession(ctx, input.session_id);
    await session.close();
    return { closed: true as const };
  });
