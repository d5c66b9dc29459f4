import { z } from "zod";
import { interactionRequestInputSchema } from "./interaction.js";
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

/** What a tool passes to `approval.request`: an interaction request of type `approval`, with its payload. */
export const approvalRequestInputSchema = interactionRequestInputSchema
  .omit({ type: true, response_schema: true })
  .extend({ payload: approvalPayloadSchema });
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
