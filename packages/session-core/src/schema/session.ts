import { z } from "zod";
import { approvalModeSchema } from "./approval-mode.js";
import { toolAllowancesSchema } from "./tool-allowance.js";

/**
 * The persisted session row. `approval_mode`, `tool_allowances` and `model_id` are the configured
 * values, the `effective_*` ones what the running Turn uses (they follow at the next Step
 * checkpoint). A null `model_id` means the agent's own model (an agent that offers no choice of
 * models).
 */
export const sessionRecordSchema = z.object({
  session_id: z.string(),
  owner_id: z.string(),
  agent_id: z.string(),
  title: z.string(),
  workspace_id: z.string().nullable(),
  created_at: z.number(),
  updated_at: z.number(),
  closed_at: z.number().nullable(),
  approval_mode: approvalModeSchema,
  effective_approval_mode: approvalModeSchema,
  /** "Allow <tool> for this session" (docs/behaviour.md#allow-for-this-session). */
  tool_allowances: toolAllowancesSchema,
  effective_tool_allowances: toolAllowancesSchema,
  model_id: z.string().nullable(),
  effective_model_id: z.string().nullable(),
});
export type SessionRecord = z.infer<typeof sessionRecordSchema>;

export const sessionStateSchema = z.enum(["idle", "running", "closed"]);

export const sessionStatusSchema = z.object({
  session_id: z.string(),
  state: z.enum(["idle", "running"]),
  active_turn_id: z.string().optional(),
  model_id: z.string().nullable(),
  effective_model_id: z.string().nullable(),
  security: z.object({
    approval_mode: approvalModeSchema,
    effective_approval_mode: approvalModeSchema,
    tool_allowances: toolAllowancesSchema,
    effective_tool_allowances: toolAllowancesSchema,
  }),
});
export type SessionStatus = z.infer<typeof sessionStatusSchema>;

export const sessionInfoSchema = sessionRecordSchema.extend({
  pending_interactions: z.number().int().nonnegative(),
  state: sessionStateSchema,
});
export type SessionInfo = z.infer<typeof sessionInfoSchema>;

export const sessionSetInputSchema = z.strictObject({
  /** One of the agent's models (`model.list`); unknown ids are `invalid_input`. */
  model_id: z.string().min(1).max(200).optional(),
  /** `tool_allowances` is the whole new list: leaving one out revokes it. */
  security: z
    .strictObject({
      approval_mode: approvalModeSchema.optional(),
      tool_allowances: toolAllowancesSchema.optional(),
    })
    .optional(),
});
export type SessionSetInput = z.infer<typeof sessionSetInputSchema>;

export const sessionSetOptionsSchema = z.strictObject({
  persist_action: z.boolean().optional(),
  publish_mutation: z.boolean().optional(),
});
export type SessionSetOptions = z.infer<typeof sessionSetOptionsSchema>;

export const stopResultSchema = z.object({
  stopped: z.boolean(),
  turn_id: z.string().optional(),
  cancelled_queued_prompts: z.number().int().nonnegative(),
  reason: z.enum(["stopped", "idle"]),
});
export type StopResult = z.infer<typeof stopResultSchema>;

export interface TurnResult {
  turn_id: string;
  text: string;
  success: boolean;
  error?: string;
}
