import { modelListOutputSchema, noInputSchema } from "@parley/session-core/contract";
import { authedProcedure } from "../trpc.js";

/**
 * The models the operator configured (`PARLEY_MODEL` first, then `PARLEY_MODELS`); sessions pick
 * one by `model_id` at `session.create` and switch with `session.set`.
 */
export const modelList = authedProcedure
  .input(noInputSchema)
  .output(modelListOutputSchema)
  .query(({ ctx }) => ({ items: ctx.services.models.list() }));
