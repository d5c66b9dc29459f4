import type { ApprovalDecision, ApprovalTarget, JsonValue, ToolCallContext } from "@parley/session-core";

/**
 * Asks the session's approval port whether a tool may do its side effect (`operation: "tool"` with
 * the validated input, as the design note's delete_file does). Call it before touching anything:
 * on a durable resume `execute` runs again and this returns the already-given answer.
 */
export function requestToolApproval(
  context: ToolCallContext,
  validated_input: JsonValue,
  tool_description: string,
  /** The file the call would change, as it is now (for the approval card's effect and diff). */
  target?: ApprovalTarget,
): Promise<ApprovalDecision> {
  return context.interactions.approval.request({
    turn_id: context.turn_id,
    tool_call_id: context.tool_call_id,
    tool_name: context.tool_name,
    payload: {
      operation: "tool",
      validated_input,
      tool_description,
      ...(target === undefined ? {} : { target }),
    },
  });
}

/**
 * What a tool returns when its approval was not given (the note's `{ success: false, error: "denied" }`).
 * When a person denied the Interaction the runtime has already failed the tool with
 * "Interaction denied" and ignores this output; it reaches the model only when the approval ended
 * some other way (for example, cancelled by `stop()`).
 */
export const DENIED_RESULT = { success: false, error: "denied" } as const;
