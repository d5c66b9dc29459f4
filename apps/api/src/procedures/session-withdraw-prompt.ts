import { withdrawPromptResultSchema } from "@parley/session-core";
import { sessionWithdrawPromptInputSchema } from "@parley/session-core/contract";
import { openVisibleSession } from "../session-access.js";
import { authedProcedure } from "../trpc.js";

/**
 * Withdraws a queued prompt by its `request_id` (docs/behaviour.md#commands). `withdrawn`: it will
 * never run; `applied`: its Turn took it first; `starts_turn`: it started its Turn (stop instead).
 */
export const sessionWithdrawPrompt = authedProcedure
  .input(sessionWithdrawPromptInputSchema)
  .output(withdrawPromptResultSchema)
  .mutation(async ({ ctx, input }) => {
    const session = await openVisibleSession(ctx, input.session_id);
    return session.withdrawPrompt({ request_id: input.request_id });
  });
