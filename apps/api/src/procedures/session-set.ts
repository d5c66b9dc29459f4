import { sessionSetOutputSchema, sessionSetProcedureInputSchema } from "@parley/session-core/contract";
import { openVisibleSession } from "../session-access.js";
import { authedProcedure } from "../trpc.js";

/**
 * Changes the configured model and/or approval mode; they take effect at the next Step checkpoint
 * (`queued: true`), or nothing happens when both equal the configured ones (`queued: false`).
 */
export const sessionSet = authedProcedure
  .input(sessionSetProcedureInputSchema)
  .output(sessionSetOutputSchema)
  .mutation(async ({ ctx, input }) => {
    const session = await openVisibleSession(ctx, input.session_id);
    return session.set(input.input, input.options);
  });
