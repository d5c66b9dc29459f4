import { z } from "zod";
import { jsonValueSchema } from "./json.js";

/** Shared by shell and tool approvals; exported by the SDK. */
export const SESSION_APPROVAL_RESPONSE_SCHEMA = {
  type: "object",
  required: ["decision"],
  properties: { decision: { type: "string", enum: ["approved", "denied"] } },
} as const;

export const approvalPayloadSchema = z.object({
  operation: z.enum(["exec", "start", "write", "tool"]),
  command: z.string().optional(),
  cwd: z.string().optional(),
  reason: z.string().optional(),
  validated_input: jsonValueSchema.optional(),
  tool_description: z.string().optional(),
  /** The model's own explanation of the call: a claim, never a security signal. */
  model_explanation: z.string().optional(),
});
export type ApprovalPayload = z.infer<typeof approvalPayloadSchema>;

export const approvalDecisionValueSchema = z.enum(["approved", "denied"]);

export const approvalResponsePayloadSchema = z.object({
  decision: approvalDecisionValueSchema,
  reason: z.string().optional(),
});
export type ApprovalResponsePayload = z.infer<typeof approvalResponsePayloadSchema>;

export const approvalRequestInputSchema = z.object({
  turn_id: z.string(),
  tool_call_id: z.string(),
  tool_name: z.string().optional(),
  source_type: z.enum(["tool", "shell"]).optional(),
  title: z.string().optional(),
  description: z.string().optional(),
  payload: approvalPayloadSchema,
});
export type ApprovalRequestInput = z.infer<typeof approvalRequestInputSchema>;

export interface ApprovalDecision {
  readonly approved: boolean;
  /** True only when the effective approval mode allowed it without asking. */
  readonly auto_approved: boolean;
  /** The interaction_id, when a person was asked. */
  readonly approval_id?: string;
}
