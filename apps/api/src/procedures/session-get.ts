import { sessionInfoSchema } from "@parley/session-core";
import { openVisibleSession } from "../session-access.js";
import { authedProcedure } from "../trpc.js";
import { sessionTargetInputSchema } from "./common-schemas.js";

export const sessionGetInputSchema = sessionTargetInputSchema;
export const sessionGetOutputSchema = sessionInfoSchema;

/** Session info including the number of pending interactions. */
export const sessionGet = authedProcedure
  .input(sessionGetInputSchema)
  .output(sessionGetOutputSchema)
  .query(async ({ ctx, input }) => {
    const session = await openVisibleSession(ctx, input.session_id);
    return session.info();
  });
