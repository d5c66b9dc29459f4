import { z } from "zod";
import type { ApprovalDecision } from "../schema/approval.js";
import type { JsonValue } from "../schema/json.js";
import { define_agent_tool } from "../tools/define-agent-tool.js";

const approvalToolInputSchema = z.strictObject({ path: z.string().min(1) });

/**
 * A tool that asks for approval in its own `execute` and counts its side effect (the basic gated
 * tool). Like the built-in gated tools it acts on the approved input, which an approver may have
 * edited.
 */
export function createApprovalTool(
  name = "delete_file",
  /** Awaited after an approval, before the side effect (a test holds the resumed tool there). */
  beforeEffect: () => Promise<void> = async () => undefined,
) {
  const effects: string[] = [];
  const decisions: ApprovalDecision[] = [];
  const tool = define_agent_tool({
    description: "Delete a file in the workspace.",
    input_schema: approvalToolInputSchema,
    side_effects: "after_asking",
    async execute(input, context): Promise<JsonValue> {
      const { path } = input;
      const decision = await context.interactions.approval.request({
        turn_id: context.turn_id,
        tool_call_id: context.tool_call_id,
        tool_name: name,
        payload: { operation: "tool", validated_input: { path } },
      });
      decisions.push(decision);
      if (!decision.approved) return { success: false, error: "denied" };
      const approved = approvalToolInputSchema.parse(decision.input ?? input);
      await beforeEffect();
      effects.push(approved.path);
      return { deleted: approved.path };
    },
  });
  return { tool, effects, decisions };
}
