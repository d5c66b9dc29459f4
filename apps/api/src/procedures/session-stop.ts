import { stopResultSchema } from "@parley/session-core";
import { sessionTargetInputSchema } from "@parley/session-core/contract";
import { openVisibleSession } from "../session-access.js";
import { authedProcedure } from "../trpc.js";

/**
 * Cancels queued prompts, aborts the running Turn and cancels its pending interactions
 * (docs/behaviour.md#commands).
 */
export const sessionStop = authedProcedure
  .input(sessionTargetInputSchema)
  .output(stopResultSchema)
  .mutation(async ({ ctx, input }) => {
    const session = await openVisibleSession(ctx, input.session_id);
    return session.stop();
  });
