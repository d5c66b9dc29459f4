import { z } from "zod";
import { authedProcedure } from "../trpc.js";
import { userRoleSchema } from "./admin-users-create.js";

export const authWhoamiInputSchema = z.strictObject({}).optional();
export const authWhoamiOutputSchema = z.object({
  user_id: z.string(),
  name: z.string(),
  role: userRoleSchema,
});

/** Who the bearer token belongs to. */
export const authWhoami = authedProcedure
  .input(authWhoamiInputSchema)
  .output(authWhoamiOutputSchema)
  .query(({ ctx }) => ({ user_id: ctx.user.user_id, name: ctx.user.name, role: ctx.user.role }));
