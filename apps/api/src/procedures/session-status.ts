import { sessionStatusSchema } from "@parley/session-core";
import { openVisibleSession } from "../session-access.js";
import { authedProcedure } from "../trpc.js";
import { sessionTargetInputSchema } from "./common-schemas.js";

export const sessionStatusInputSchema = sessionTargetInputSchema;
export const sessionStatusOutputSchema = sessionStatusSchema;

/** Running or idle, the active Turn, and the configured vs effective approval mode. */
export const sessionStatus = authedProcedure
  .input(sessionStatusInputSchema)
  .output(sessionStatusOutputSchema)
  .query(async ({ ctx, input }) => {
    const session = await openVisibleSession(ctx, input.session_id);
    return session.status();
  });
