import { z } from "zod";
import type { ApprovalDecision } from "../../schema/approval.js";
import type { JsonValue } from "../../schema/json.js";
import { define_agent_tool } from "../../tools/define-agent-tool.js";

/** A tool that asks for approval in its own `execute` and counts its side effect (the note's example). */
export function createApprovalTool(name = "delete_file") {
  const effects: string[] = [];
  const decisions: ApprovalDecision[] = [];
  const tool = define_agent_tool({
    description: "Delete a file in the workspace.",
    input_schema: z.object({ path: z.string() }),
    async execute({ path }, context): Promise<JsonValue> {
      const decision = await context.interactions.approval.request({
        turn_id: context.turn_id,
        tool_call_id: context.tool_call_id,
        tool_name: name,
        payload: { operation: "tool", validated_input: { path } },
      });
      decisions.push(decision);
      if (!decision.approved) return { success: false, error: "denied" };
      effects.push(path);
      return { deleted: path };
    },
  });
  return { tool, effects, decisions };
}

/** A tool whose `execute` waits until the test lets it finish. */
export function createBlockingTool() {
  let started!: () => void;
  let finish!: (value: string) => void;
  const startedPromise = new Promise<void>((resolve) => {
    started = resolve;
  });
  const finished = new Promise<string>((resolve) => {
    finish = resolve;
  });
  const tool = define_agent_tool({
    description: "Runs until released.",
    input_schema: z.object({}),
    async execute() {
      started();
      return { result: await finished };
    },
  });
  return { tool, started: startedPromise, finish };
}
