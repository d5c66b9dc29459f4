import { sessionMessageSchema } from "@parley/session-core";
import { z } from "zod";
import { openVisibleSession } from "../session-access.js";
import { authedProcedure } from "../trpc.js";
import { sessionIdSchema } from "./common-schemas.js";
import { LIMITS } from "./limits.js";

export const sessionMessagesInputSchema = z.strictObject({
  session_id: sessionIdSchema,
  before_sequence: z.number().int().positive().optional(),
  limit: z.number().int().min(1).max(LIMITS.message_page_max).optional(),
});

export const sessionMessagesOutputSchema = z.object({
  items: z.array(sessionMessageSchema),
  has_more: z.boolean(),
  next_before_sequence: z.number().int().nullable(),
});

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
