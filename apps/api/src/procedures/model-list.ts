import { z } from "zod";
import { authedProcedure } from "../trpc.js";

export const modelListInputSchema = z.strictObject({}).optional();
export const modelListOutputSchema = z.object({
  items: z.array(z.object({ model_id: z.string(), label: z.string() })),
});

/**
 * The models the operator configured (`PARLEY_MODEL` first, then `PARLEY_MODELS`); sessions pick
 * one by `model_id` at `session.create` and switch with `session.set`.
 */
export const modelList = authedProcedure
  .input(modelListInputSchema)
  .output(modelListOutputSchema)
  .query(({ ctx }) => ({ items: ctx.services.models.list() }));
