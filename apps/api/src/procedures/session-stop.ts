import { stopResultSchema } from "@parley/session-core";
import { openVisibleSession } from "../session-access.js";
import { authedProcedure } from "../trpc.js";
import { sessionTargetInputSchema } from "./common-schemas.js";

export const sessionStopInputSchema = sessionTargetInputSchema;
export const sessionStopOutputSchema = stopResultSchema;

/**
 * Cancels queued prompts, aborts the running Turn and cancels its pending interactions
 * (docs/behaviour.md#commands).
 */
export const sessionStop = authedProcedure
  .input(sessionStopInputSchema)
  .output(sessionStopOutputSchema)
  .mutation(async ({ ctx, input }) => {
    const session = await openVisibleSession(ctx, input.session_id);
    return session.stop();
  });
