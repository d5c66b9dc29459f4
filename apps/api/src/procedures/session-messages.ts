import {
  LIMITS,
  sessionMessagesInputSchema,
  sessionMessagesOutputSchema,
} from "@parley/session-core/contract";
import { openVisibleSession } from "../session-access.js";
import { authedProcedure } from "../trpc.js";

/** The newest `limit` messages before `before_sequence` (or overall), ascending by sequence. */
export const sessionMessages = authedProcedure
  .input(sessionMessagesInputSchema)
  .output(sessionMessagesOutputSchema)
  .query(async ({ ctx, input }) => {
    const session = await openVisibleSession(ctx, input.session_id);
    return session.messages({
      before_sequence: input.before_sequence,
      limit: input.limit ?? LIMITS.message_page_default,
    });
  });
