import { interactionRequestSchema } from "@parley/session-core";
import { z } from "zod";
import { openVisibleSession } from "../session-access.js";
import { authedProcedure } from "../trpc.js";
import { sessionTargetInputSchema } from "./common-schemas.js";

export const sessionInteractionsInputSchema = sessionTargetInputSchema;
export const sessionInteractionsOutputSchema = z.array(interactionRequestSchema);

/** The bare `request` of every pending interaction, in occurrence order. */
export const sessionInteractions = authedProcedure
  .input(sessionInteractionsInputSchema)
  .output(sessionInteractionsOutputSchema)
  .query(async ({ ctx, input }) => {
    const session = await openVisibleSession(ctx, input.session_id);
    return session.interactions();
  });
