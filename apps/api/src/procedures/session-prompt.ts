import { sessionPromptInputSchema, sessionPromptOutputSchema } from "@parley/session-core/contract";
import { openVisibleSession } from "../session-access.js";
import { authedProcedure } from "../trpc.js";

/** Starts a Turn (or steers / queues into the running one); answers once the prompt is persisted. */
export const sessionPrompt = authedProcedure
  .input(sessionPromptInputSchema)
  .output(sessionPromptOutputSchema)
  .mutation(async ({ ctx, input }) => {
    const session = await openVisibleSession(ctx, input.session_id);
    const send = async () => {
      const turn = await session.prompt({ query: input.query, request_id: input.request_id });
      return { turn_id: turn.id };
    };
    // Prompts per minute and workspace bytes are checked and the prompt persisted under the member's lock.
    // A retry (same `request_id`) is answered from its first call, not counted again.
    const prompt_key =
      input.request_id === undefined
        ? undefined
        : { session_id: input.session_id, request_id: input.request_id };
    return ctx.services.quotas ? ctx.services.quotas.prompt(ctx.user, send, prompt_key) : send();
  });
