import { ParleyError } from "@parley/session-core";
import { adminUsersCreateInputSchema, adminUsersCreateOutputSchema } from "@parley/session-core/contract";
import { adminProcedure } from "../trpc.js";

/** Creates a user and its first token; the token is shown this once (only its hash is stored). */
export const adminUsersCreate = adminProcedure
  .input(adminUsersCreateInputSchema)
  .output(adminUsersCreateOutputSchema)
  .mutation(async ({ ctx, input }) => {
    const { auth } = ctx.services;
    const nameTaken = () =>
      new ParleyError("invalid_input", `A user with this name already exists: ${input.name}`);
    if ((await auth.findUserByName(input.name)) !== null) throw nameTaken();
    const user = await auth
      .createUser({ name: input.name, role: input.role })
      .catch(async (error: unknown) => {
        // A concurrent create of the same name lost the unique-name race: still the caller's mistake.
        if ((await auth.findUserByName(input.name)) !== null) throw nameTaken();
        throw error;
      });
    const token = await auth.issueToken(user.user_id);
    return { user_id: user.user_id, token };
  });
