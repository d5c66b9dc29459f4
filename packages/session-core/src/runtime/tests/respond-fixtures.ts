import { ParleyError } from "../../errors.js";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import { createApprovalTool, createRequestTool } from "./tools.js";

/* What the respond() scenarios share: a session with one pending approval or question. */

export const approval = (
  decision: "approved" | "denied",
  outcome: "resolved" | "denied" = decision === "approved" ? "resolved" : "denied",
) => ({
  type: "approval",
  outcome,
  payload: { decision },
});

export async function pendingApproval(options: { tool_call_id?: string } = {}) {
  const tool_call_id = options.tool_call_id ?? "call_1";
  const approvalTool = createApprovalTool();
  const model = createScriptedModel([
    [{ tool_call: { id: tool_call_id, name: "delete_file", input: { path: "a.txt" } } }],
    [{ text: "done" }],
  ]);
  const harness = new RuntimeHarness({ model, tools: { delete_file: approvalTool.tool } });
  const session = await harness.createSession();
  const turn = await session.prompt({ query: "delete a.txt" });
  const interaction_id = await harness.pendingInteraction(tool_call_id);
  return { harness, session, turn, interaction_id, ...approvalTool };
}

export async function pendingQuestion() {
  const asker = createRequestTool((context) => ({
    type: "question",
    turn_id: context.turn_id,
    tool_call_id: context.tool_call_id,
    payload: { questions: [{ question_id: "question:q1", question: "Where?", type: "text" }] },
  }));
  const model = createScriptedModel([[{ tool_call: { id: "call_q", name: "asker" } }], [{ text: "done" }]]);
  const harness = new RuntimeHarness({ model, tools: { asker: asker.tool } });
  const session = await harness.createSession();
  const turn = await session.prompt({ query: "ask" });
  const interaction_id = await harness.pendingInteraction("call_q");
  return { harness, session, turn, interaction_id, asker };
}

export async function rejection(promise: Promise<unknown>): Promise<ParleyError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ParleyError) return error;
    throw error;
  }
  throw new Error("expected a rejection");
}
