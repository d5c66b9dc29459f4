import { sessionInfoSchema } from "@parley/session-core";
import { sessionCreateInputSchema } from "@parley/session-core/contract";
import { authedProcedure } from "../trpc.js";

/**
 * Creates a session owned by the caller, on a configured model, in a configured workspace or its
 * own directory.
 */
export const sessionCreate = authedProcedure
  .input(sessionCreateInputSchema)
  .output(sessionInfoSchema)
  .mutation(async ({ ctx, input }) => {
    const { runtime, workspaces, agent_id } = ctx.services;
    const workspace_id = input?.workspace_id ?? null;
    if (workspace_id !== null) workspaces.assertKnown(workspace_id, ctx.user);
    const create = async () => {
      const session = await runtime.createSession({
        owner_id: ctx.user.user_id,
        agent_id,
        title: input?.title,
        approval_mode: input?.approval_mode,
        ...(input?.model_id === undefined ? {} : { model_id: input.model_id }),
        workspace_id,
      });
      return session.info();
    };
    // A member's sessions quota is checked and the session committed under the member's lock.
    return ctx.services.quotas ? ctx.services.quotas.createSession(ctx.user, create) : create();
  });
