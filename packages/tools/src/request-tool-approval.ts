import type { ApprovalDecision, ApprovalTarget, JsonValue, ToolCallContext } from "@parley/session-core";
import { z } from "zod";

/**
 * The optional `explanation` input of the gated tools (like a Bash tool's `description`): the
 * model says why it makes this call. It reaches the approval as `payload.model_explanation`, shown
 * as the model's claim, never as a verified fact or a security signal (docs/behaviour.md#approvals).
 */
export const explanationInputSchema = z
  .string()
  .max(1_000)
  .optional()
  .describe("One sentence for the user on why you make this call; shown with the approval request");

/** Splits the model's explanation off the input it explains. */
export function withoutExplanation<T extends { explanation?: string | undefined }>(
  input: T,
): { validated: Omit<T, "explanation">; model_explanation: string | undefined } {
  const { explanation, ...validated } = input;
  return { validated, model_explanation: explanation };
}

/**
 * Asks the session's approval port whether a tool may do its side effect (`operation: "tool"` with
 * the validated input, as delete_file does). Call it before touching anything:
 * on a durable resume `execute` runs again and this returns the already-given answer.
 */
export function requestToolApproval(
  context: ToolCallContext,
  validated_input: JsonValue,
  tool_description: string,
  extras: {
    /** The model's own words on why (`explanation`), shown as its claim. */
    model_explanation?: string | undefined;
    /** The file the call would change, as it is now (for the approval card's effect and diff). */
    target?: ApprovalTarget | undefined;
  } = {},
): Promise<ApprovalDecision> {
  return context.interactions.approval.request({
    turn_id: context.turn_id,
    tool_call_id: context.tool_call_id,
    tool_name: context.tool_name,
    payload: {
      operation: "tool",
      validated_input,
      tool_description,
      ...(extras.model_explanation === undefined ? {} : { model_explanation: extras.model_explanation }),
      ...(extras.target === undefined ? {} : { target: extras.target }),
    },
  });
}

/**
 * What a tool returns when its approval was not given (`{ success: false, error: "denied" }`).
 * When a person denied the Interaction the runtime has already failed the tool with
 * "Interaction denied" and ignores this output; it reaches the model only when the approval ended
 * some other way (for example, cancelled by `stop()`).
 */
export const DENIED_RESULT = { success: false, error: "denied" } as const;

/**
 * The input an approved call runs with: `decision.input` (the approver's edit when they made one,
 * else the `validated_input` asked about; checked against the tool's input schema when answered,
 * parsed again here for its types), or the model's own `input` when the port returned none.
 */
export function approvedInput<T>(schema: z.ZodType<T>, decision: ApprovalDecision, input: T): T {
  return decision.input === undefined ? input : schema.parse(decision.input);
}
