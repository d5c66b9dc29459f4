import { sessionStatusSchema } from "@parley/session-core";
import { sessionTargetInputSchema } from "@parley/session-core/contract";
import { openVisibleSession } from "../session-access.js";
import { authedProcedure } from "../trpc.js";

/** Running or idle, the active Turn, and the configured vs effective approval mode. */
export const sessionStatus = authedProcedure
  .input(sessionTargetInputSchema)
  .output(sessionStatusSchema)
  .query(async ({ ctx, input }) => {
    const session = await openVisibleSession(ctx, input.session_id);
    return session.status();
  });
