import { sessionInfoSchema } from "@parley/session-core";
import { sessionTargetInputSchema } from "@parley/session-core/contract";
import { openVisibleSession } from "../session-access.js";
import { authedProcedure } from "../trpc.js";

/** Session info including the number of pending interactions. */
export const sessionGet = authedProcedure
  .input(sessionTargetInputSchema)
  .output(sessionInfoSchema)
  .query(async ({ ctx, input }) => {
    const session = await openVisibleSession(ctx, input.session_id);
    return session.info();
  });
