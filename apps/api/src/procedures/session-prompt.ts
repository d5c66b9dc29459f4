import { z } from "zod";
import { openVisibleSession } from "../session-access.js";
import { authedProcedure } from "../trpc.js";
import { sessionIdSchema } from "./common-schemas.js";
import { LIMITS } from "./limits.js";

export const sessionPromptInputSchema = z.strictObject({
  session_id: sessionIdSchema,
  query: z
    .string()
    .max(LIMITS.prompt_chars)
    .refine((query) => query.trim().length > 0, "query must not be empty"),
  request_id: z.string().min(1).max(LIMITS.id_chars).optional(),
});

export const sessionPromptOutputSchema = z.object({ turn_id: z.string() });

/** Starts a Turn (or steers / queues into the running one); answers once the prompt is persisted. */
export const sessionPrompt = authedProcedure
  .input(sessionPromptInputSchema)
  .output(sessionPromptOutputSchema)
  .mutation(async ({ ctx, input }) => {
    const session = await openVisibleSession(ctx, input.session_id);
    const turn = await session.prompt({ query: input.query, request_id: input.request_id });
    return { turn_id: turn.id };
  });
