import { z } from "zod";
import { authedProcedure } from "../trpc.js";

export const workspaceListInputSchema = z.strictObject({}).optional();
export const workspaceListOutputSchema = z.object({ items: z.array(z.object({ workspace_id: z.string() })) });

/**
 * The workspaces the operator configured (`PARLEY_WORKSPACES`) that the caller may use; sessions may
 * pick one by id.
 */
export const workspaceList = authedProcedure
  .input(workspaceListInputSchema)
  .output(workspaceListOutputSchema)
  .query(({ ctx }) => ({ items: ctx.services.workspaces.list(ctx.user) }));
