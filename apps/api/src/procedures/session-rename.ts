import { sessionInfoSchema } from "@parley/session-core";
import { sessionRenameInputSchema } from "@parley/session-core/contract";
import { openVisibleSession } from "../session-access.js";
import { authedProcedure } from "../trpc.js";

/** Renames an open session (its owner or an admin); its prompts never retitle it afterwards. */
export const sessionRename = authedProcedure
  .input(sessionRenameInputSchema)
  .output(sessionInfoSchema)
  .mutation(async ({ ctx, input }) => {
    const session = await openVisibleSession(ctx, input.session_id);
    return session.rename(input.title);
  });
