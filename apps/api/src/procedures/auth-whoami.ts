import { authWhoamiOutputSchema, noInputSchema } from "@parley/session-core/contract";
import { authedProcedure } from "../trpc.js";

/** Who the bearer token belongs to. */
export const authWhoami = authedProcedure
  .input(noInputSchema)
  .output(authWhoamiOutputSchema)
  .query(({ ctx }) => ({ user_id: ctx.user.user_id, name: ctx.user.name, role: ctx.user.role }));
