import { sessionSetInputSchema, sessionSetOptionsSchema } from "@parley/session-core";
import { z } from "zod";
import { openVisibleSession } from "../session-access.js";
import { authedProcedure } from "../trpc.js";
import { sessionIdSchema } from "./common-schemas.js";

export const sessionSetProcedureInputSchema = z
  .strictObject({
    session_id: sessionIdSchema,
    input: sessionSetInputSchema.refine(
      (input) => input.security !== undefined || input.model_id !== undefined,
      "session.set requires model or security",
    ),
    options: sessionSetOptionsSchema.optional(),
  })
  .refine(({ options }) => !(options?.persist_action === false && options.publish_mutation === true), {
    message: "session.set publish_mutation requires persist_action",
    path: ["options"],
  });

export const sessionSetOutputSchema = z.object({ queued: z.boolean() });

/**
 * Changes the configured model and/or approval mode; they take effect at the next Step checkpoint
 * (`queued: true`), or nothing happens when both equal the configured ones (`queued: false`).
 */
export const sessionSet = authedProcedure
  .input(sessionSetProcedureInputSchema)
  .output(sessionSetOutputSchema)
  .mutation(async ({ ctx, input }) => {
    const session = await openVisibleSession(ctx, input.session_id);
    return session.set(input.input, input.options);
  });
