import { z } from "zod";
import { jsonValueSchema } from "./json.js";

/** Shared by shell and tool approvals; exported by the SDK. */
export const SESSION_APPROVAL_RESPONSE_SCHEMA = {
  type: "object",
  required: ["decision"],
  properties: { decision: { type: "string", enum: ["approved", "denied"] } },
} as const;

/** Largest existing file whose content an approval request carries for the diff. */
export const APPROVAL_PREVIOUS_CONTENT_MAX_BYTES = 256 * 1024;

export const approvalTargetSchema = z.object({
  path: z.string(),
  exists: z.boolean(),
  size_bytes: z.number().int().nonnegative().optional(),
  previous_content: z.string().optional(),
});
export type ApprovalTarget = z.infer<typeof approvalTargetSchema>;

export const approvalWorkspaceSchema = z.object({
  /** The operator's workspace id, or "session workspace" for the session's own directory. */
  name: z.string(),
  /** The real directory the command runs in. */
  cwd: z.string(),
});
export type ApprovalWorkspace = z.infer<typeof approvalWorkspaceSchema>;

export const approvalPayloadSchema = z.object({
  operation: z.enum(["exec", "start", "write", "tool"]),
  command: z.string().optional(),
  cwd: z.string().optional(),
  reason: z.string().optional(),
  validated_input: jsonValueSchema.optional(),
  tool_description: z.string().optional(),
  /** The model's own explanation of the call: a claim, never a security signal. */
  model_explanation: z.string().optional(),
  /**
   * Parley: the file a file tool would change, as it was when the approval was asked, so a person
   * sees the effect ("new file", "overwrites N bytes", a diff). `previous_content` is present only
   * for an existing UTF-8 file of at most `APPROVAL_PREVIOUS_CONTENT_MAX_BYTES`.
   */
  target: approvalTargetSchema.optional(),
  /** Parley: where a shell command runs: the workspace's name and the resolved directory. */
  workspace: approvalWorkspaceSchema.optional(),
});
export type ApprovalPayload = z.infer<typeof approvalPayloadSchema>;

export const approvalDecisionValueSchema = z.enum(["approved", "denied"]);

export const approvalResponsePayloadSchema = z.object({
  decision: approvalDecisionValueSchema,
  /** Shown to the model with the denied result (reference §A.8.3). */
  reason: z.string().optional(),
  /** Parley: `session` allows this tool for the rest of the session (later calls run unasked). */
  scope: z.enum(["once", "session"]).optional(),
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
  /**
   * When approved and the request carried `validated_input`: the input the tool must run with, the
   * approver's `edited_input` if they edited it, else the `validated_input` asked about.
   */
  readonly input?: z.infer<typeof jsonValueSchema>;
}
