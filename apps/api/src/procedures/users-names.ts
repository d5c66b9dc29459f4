import { usersNamesInputSchema, usersNamesOutputSchema } from "@parley/session-core/contract";
import { authedProcedure } from "../trpc.js";

/**
 * Display names for user ids the caller already holds (an Interaction's `responded_by`, a session's
 * `owner_id`), so clients show "Approved by Ada" instead of a raw id. Names only, never roles or
 * tokens; ids no user has are left out.
 */
export const usersNames = authedProcedure
  .input(usersNamesInputSchema)
  .output(usersNamesOutputSchema)
  .query(async ({ ctx, input }) => {
    const ids = [...new Set(input.user_ids)];
    const users = await Promise.all(ids.map((id) => ctx.services.auth.getUser(id)));
    return {
      items: users.flatMap((user) => (user ? [{ user_id: user.user_id, name: user.name }] : [])),
    };
  });
