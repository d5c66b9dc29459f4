import { noInputSchema, workspaceListOutputSchema } from "@parley/session-core/contract";
import { authedProcedure } from "../trpc.js";

/**
 * The workspaces the operator configured (`PARLEY_WORKSPACES`) that the caller may use; sessions may
 * pick one by id.
 */
export const workspaceList = authedProcedure
  .input(noInputSchema)
  .output(workspaceListOutputSchema)
  .query(({ ctx }) => ({ items: ctx.services.workspaces.list(ctx.user) }));
