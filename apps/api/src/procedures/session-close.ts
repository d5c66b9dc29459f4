import { z } from "zod";
import { openVisibleSession } from "../session-access.js";
import { authedProcedure } from "../trpc.js";
import { sessionTargetInputSchema } from "./common-schemas.js";

export const sessionCloseInputSchema = sessionTargetInputSchema;
export const sessionCloseOutputSchema = z.object({ closed: z.literal(true) });

/** Ends the session: stops its Turn, cancels pending interactions (`session_disposed`). */
export const sessionClose = authedProcedure
  .input(sessionCloseInputSchema)
  .output(sessionCloseOutputSchema)
  .mutation(async ({ ctx, input }) => {
    const session = await openVisibleSession(ctx, input.session_id);
    await session.close();
    return { closed: true as const };
  });
