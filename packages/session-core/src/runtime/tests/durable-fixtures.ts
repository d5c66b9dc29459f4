import type { SessionCommit } from "../../ports/session-store.js";
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

/**
 * The answered tool as `commit` writes it: its state, its first Interaction's status, and whether
 * the answer is handed over (`resumed_at`) in that same commit.
 */
export function answeredToolIn(commit: SessionCommit | undefined): [string, string, boolean] | [] {
  const snapshot = commit?.message?.snapshot;
  const tool =
    snapshot?.type === "assistant" ? snapshot.parts.find((part) => part.type === "tool") : undefined;
  if (tool?.type !== "tool") return [];
  const interaction = tool.interactions?.[0];
  return [tool.state, interaction?.status ?? "none", interaction?.resumed_at !== undefined];
}
