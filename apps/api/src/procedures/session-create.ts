import { approvalModeSchema, sessionInfoSchema } from "@parley/session-core";
import { z } from "zod";
import { authedProcedure } from "../trpc.js";
import { LIMITS } from "./limits.js";

export const sessionCreateInputSchema = z
  .strictObject({
    title: z.string().max(LIMITS.title_chars).optional(),
    approval_mode: approvalModeSchema.optional(),
    /** One of `model.list`; default: the first (`PARLEY_MODEL`). Unknown ids are `invalid_input`. */
    model_id: z.string().min(1).max(LIMITS.id_chars).optional(),
    workspace_id: z.string().min(1).max(LIMITS.id_chars).nullish(),
  })
  .optional();

export const sessionCreateOutputSchema = sessionInfoSchema;

/**
 * Creates a session owned by the caller, on a configured model, in a configured workspace or its
 * own directory.
 */
export const sessionCreate = authedProcedure
  .input(sessionCreateInputSchema)
  .output(sessionCreateOutputSchema)
  .mutation(async ({ ctx, input }) => {
    const { runtime, workspaces, agent_id } = ctx.services;
    const workspace_id = input?.workspace_id ?? null;
    if (workspace_id !== null) workspaces.assertKnown(workspace_id, ctx.user);
    const session = await runtime.createSession({
      owner_id: ctx.user.user_id,
      agent_id,
      title: input?.title,
      approval_mode: input?.approval_mode,
      ...(input?.model_id === undefined ? {} : { model_id: input.model_id }),
      workspace_id,
    });
    return session.info();
  });
