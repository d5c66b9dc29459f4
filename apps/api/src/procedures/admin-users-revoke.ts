import { ParleyError } from "@parley/session-core";
import { adminUsersRevokeInputSchema, adminUsersRevokeOutputSchema } from "@parley/session-core/contract";
import { adminProcedure } from "../trpc.js";

/**
 * Revokes every token of the named user (README.md#sign-in-tokens-and-limits): they fail at once
 * here, within the auth cache's second on other instances, and the user's open WebSockets and SSE
 * streams close.
 */
export const adminUsersRevoke = adminProcedure
  .input(adminUsersRevokeInputSchema)
  .output(adminUsersRevokeOutputSchema)
  .mutation(async ({ ctx, input }) => {
    const user = await ctx.services.auth.findUserByName(input.name);
    if (user === null) throw new ParleyError("invalid_input", `No user with this name: ${input.name}`);
    const revoked = await ctx.services.auth.revokeTokens(user.user_id);
    await ctx.access.tokensRevoked(user.user_id);
    return { revoked };
  });
