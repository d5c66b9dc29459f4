import { queuedPromptListSchema } from "@parley/session-core";
import { sessionTargetInputSchema } from "@parley/session-core/contract";
import { openVisibleSession } from "../session-access.js";
import { authedProcedure } from "../trpc.js";

/**
 * The prompts queued behind the session's running or waiting Turn, in order
 * (docs/behaviour.md#commands); a `session` mutation of type `queue` says when to read it again.
 */
export const sessionQueuedPrompts = authedProcedure
  .input(sessionTargetInputSchema)
  .output(queuedPromptListSchema)
  .query(async ({ ctx, input }) => {
    const session = await openVisibleSession(ctx, input.session_id);
    return { items: await session.queuedPrompts() };
  });
