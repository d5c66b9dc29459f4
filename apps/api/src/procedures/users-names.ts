import { z } from "zod";
import { authedProcedure } from "../trpc.js";
import { LIMITS } from "./limits.js";

/** Most ids one call resolves (a screen shows a handful of responders). */
export const USER_NAMES_MAX_IDS = 100;

export const usersNamesInputSchema = z.strictObject({
  user_ids: z.array(z.string().min(1).max(LIMITS.id_chars)).max(USER_NAMES_MAX_IDS),
});

export const usersNamesOutputSchema = z.object({
  items: z.array(z.object({ user_id: z.string(), name: z.string() })),
});

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
