import { RuntimeHarness, type RuntimeHarnessOptions } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import { createApprovalTool } from "./tools.js";

/* What the durable-resume and parking scenarios share: a Turn waiting for approvals in process A. */

export const approve = (interaction_id: string) => ({
  interaction_id,
  response: { type: "approval", outcome: "resolved" as const, payload: { decision: "approved" } },
});

export async function waitingInA(
  tool_call_ids = ["call_1"],
  options: Pick<RuntimeHarnessOptions, "park_waiting_turns" | "recovery_loop"> = {},
) {
  const approval = createApprovalTool();
  const model = createScriptedModel([
    tool_call_ids.map((id, index) => ({
      tool_call: { id, name: "delete_file", input: { path: `file-${index}` } },
    })),
    [{ text: "all done" }],
  ]);
  const harness = new RuntimeHarness({ model, tools: { delete_file: approval.tool }, ...options });
  const session = await harness.createSession({ process_id: "A" });
  const turn = await session.prompt({ query: "delete" });
  const interaction_ids: string[] = [];
  for (const id of tool_call_ids) interaction_ids.push(await harness.pendingInteraction(id));
  return { harness, model, session, turn, interaction_ids, ...approval };
}

export /** Waits until the process holds nothing of any session (its abandoned Turn is gone). */
async function untilHostless(harness: RuntimeHarness, process_id: string): Promise<void> {
  while (harness.runtime(process_id).stats().hosts > 0) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export function turnFinish(harness: RuntimeHarness, turn_id: string) {
  return harness.waitFor(
    (mutation) => mutation.variant === "turn" && mutation.type === "finish" && mutation.turn_id === turn_id,
  );
}
