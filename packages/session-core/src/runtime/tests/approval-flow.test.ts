import { beforeEach, describe, expect, it } from "vitest";
import { SESSION_APPROVAL_RESPONSE_SCHEMA } from "../../schema/approval.js";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import { createApprovalTool } from "./tools.js";

const approve = (interaction_id: string) => ({
  interaction_id,
  response: { type: "approval", outcome: "resolved" as const, payload: { decision: "approved" } },
});
const deny = (interaction_id: string, reason?: string) => ({
  interaction_id,
  response: {
    type: "approval",
    outcome: "denied" as const,
    payload: { decision: "denied", ...(reason ? { reason } : {}) },
  },
});

/** Production parks a waiting Turn (DESIGN §10.7); the live-waiter path is the tested variant. */
const PARKING_MODES = [
  { mode: "parking on (production)", park_waiting_turns: true },
  { mode: "parking off (live-waiter variant)", park_waiting_turns: false },
] as const;

let park_waiting_turns = true;

function approvalScenario() {
  const { tool, effects, decisions } = createApprovalTool("custom_approval");
  const model = createScriptedModel([
    [{ tool_call: { id: "call_1", name: "custom_approval", input: { path: "a.txt" } } }],
    [{ text: "step two" }],
  ]);
  const harness = new RuntimeHarness({ model, tools: { custom_approval: tool }, park_waiting_turns });
  return { harness, model, effects, decisions };
}

describe.each(PARKING_MODES)("tool approvals, $mode", (variant) => {
  beforeEach(() => {
    park_waiting_turns = variant.park_waiting_turns;
  });

  it("G25: an approved tool runs its side effect once and the Turn continues with the next Step", async () => {
    const { harness, model, effects, decisions } = approvalScenario();
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "delete a.txt" });
    const interaction_id = await harness.pendingInteraction("call_1");
    const [request] = await session.interactions();
    expect(request?.source).toEqual({ type: "tool", tool_call_id: "call_1", tool_name: "custom_approval" });
    expect(request?.payload).toEqual({ operation: "tool", validated_input: { path: "a.txt" } });
    expect(request?.turn_id).toBe(turn.id);
    expect(request && "title" in request).toBe(false);
    expect(request && "reason" in request).toBe(false);
    expect(request?.response_schema).toEqual(SESSION_APPROVAL_RESPONSE_SCHEMA);

    const result = await session.respond(approve(interaction_id));
    expect(result).toEqual({
      status: "resolved",
      interaction_id,
      response: approve(interaction_id).response,
    });
    expect(await turn.finished).toEqual({ turn_id: turn.id, text: "step two", success: true });
    expect(effects).toEqual(["a.txt"]);
    expect(decisions).toEqual([
      { approved: true, auto_approved: false, approval_id: interaction_id, input: { path: "a.txt" } },
    ]);
    expect(model.calls).toHaveLength(2);
    expect(model.calls[1]?.tool_results).toEqual([
      {
        tool_call_id: "call_1",
        tool_name: "custom_approval",
        output: { type: "json", value: { deleted: "a.txt" } },
      },
    ]);
    const tool = await harness.tool(session.id, "call_1");
    expect(tool.state).toBe("completed");
    expect(tool.output).toEqual({ deleted: "a.txt" });
    // Durable states; `input-streaming` and `ready` were live (DESIGN §10.6).
    expect(harness.toolStates(session.id, "call_1")).toEqual(["waiting-user", "running", "completed"]);
    expect(harness.liveToolStates(session.id, "call_1")).toEqual(["input-streaming", "ready"]);
  });

  it("G26: a denied tool never runs its side effect, stays failed, and the Turn still succeeds", async () => {
    const { harness, effects } = approvalScenario();
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "delete a.txt" });
    const interaction_id = await harness.pendingInteraction("call_1");
    const result = await session.respond(deny(interaction_id));
    expect(result).toEqual({ status: "denied", interaction_id });
    expect(await turn.finished).toMatchObject({ success: true, text: "step two" });
    expect(effects).toEqual([]);
    const tool = await harness.tool(session.id, "call_1");
    expect(tool.state).toBe("failed");
    expect(tool.error).toBe("Interaction denied");
    expect(tool.output).toBeUndefined();
  });

  it("G12: a denial's reason is returned", async () => {
    const { harness } = approvalScenario();
    const session = await harness.createSession();
    await session.prompt({ query: "delete a.txt" });
    const interaction_id = await harness.pendingInteraction("call_1");
    expect(await session.respond(deny(interaction_id, "too risky"))).toEqual({
      status: "denied",
      interaction_id,
      reason: "too risky",
    });
  });

  it("G28: in always-allow the approval port auto-approves without an Interaction", async () => {
    const { harness, effects, decisions } = approvalScenario();
    const session = await harness.createSession({ approval_mode: "always-allow" });
    const turn = await session.prompt({ query: "delete a.txt" });
    expect(await turn.finished).toMatchObject({ success: true });
    expect(decisions).toEqual([{ approved: true, auto_approved: true, input: { path: "a.txt" } }]);
    expect(effects).toEqual(["a.txt"]);
    expect(harness.toolStates(session.id, "call_1")).not.toContain("waiting-user");
    expect(await harness.store.queryInteractions({ limit: 10 })).toEqual({ items: [], next_cursor: null });
    expect(await session.interactions()).toEqual([]);
  });

  it("G29: an approval answered by a person reports approval_id", async () => {
    const { harness, decisions } = approvalScenario();
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "delete a.txt" });
    const interaction_id = await harness.pendingInteraction("call_1");
    await session.respond(approve(interaction_id));
    await turn.finished;
    expect(decisions).toEqual([
      { approved: true, auto_approved: false, approval_id: interaction_id, input: { path: "a.txt" } },
    ]);
  });
});
