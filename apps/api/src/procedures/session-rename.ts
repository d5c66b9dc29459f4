import { sessionInfoSchema } from "@parley/session-core";
import { z } from "zod";
import { openVisibleSession } from "../session-access.js";
import { authedProcedure } from "../trpc.js";
import { sessionIdSchema } from "./common-schemas.js";
import { LIMITS } from "./limits.js";

/** The title counts after trimming: blank or longer than `title_chars` is `invalid_input`. */
export const sessionRenameInputSchema = z.strictObject({
  session_id: sessionIdSchema,
  title: z.string().trim().min(1).max(LIMITS.title_chars),
});

export const sessionRenameOutputSchema = sessionInfoSchema;

/** Renames an open session (its owner or an admin); its prompts never retitle it afterwards. */
export const sessionRename = authedProcedure
  .input(sessionRenameInputSchema)
  .output(sessionRenameOutputSchema)
  .mutation(async ({ ctx, input }) => {
    const session = await openVisibleSession(ctx, input.session_id);
    return session.rename(input.title);
  });
