import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { JsonValue } from "../schema/json.js";
import { define_agent_tool } from "../tools/define-agent-tool.js";
import { MutationRecorder } from "./mutation-recorder.js";
import { RuntimeHarness } from "./runtime-harness.js";
import { createScriptedModel, type ScriptedStep } from "./scripted-model.js";
import { createSequentialIds, createTestClock } from "./test-clock.js";

function approvalTool(effects: string[]) {
  return define_agent_tool({
    description: "Delete a file.",
    input_schema: z.object({ path: z.string() }),
    side_effects: "after_asking",
    async execute({ path }, context): Promise<JsonValue> {
      const decision = await context.interactions.approval.request({
        turn_id: context.turn_id,
        tool_call_id: context.tool_call_id,
        tool_name: "delete_file",
        payload: { operation: "tool", validated_input: { path } },
      });
      if (!decision.approved) return { deleted: null };
      effects.push(path);
      return { deleted: path };
    },
  });
}

/** The harness over a fixed clock and sequential ids, with the agent's model scripted by `steps`. */
function scriptedHarness(effects: string[], steps: ScriptedStep[]) {
  const model = createScriptedModel(steps);
  const clock = createTestClock();
  const harness = new RuntimeHarness({
    model,
    tools: { delete_file: approvalTool(effects) },
    clock,
    ids: createSequentialIds(),
  });
  return { harness, model, clock };
}

const approve = (interaction_id: string) => ({
  interaction_id,
  response: { type: "approval", outcome: "resolved" as const, payload: { decision: "approved" } },
});

describe("RuntimeHarness", () => {
  it("runs a scripted Turn through an approval with a fixed clock and sequential ids", async () => {
    const effects: string[] = [];
    const { harness, model, clock } = scriptedHarness(effects, [
      [{ text: "before" }, { tool_call: { id: "call_1", name: "delete_file", input: { path: "a.txt" } } }],
      [{ text: "done" }],
    ]);
    const session = await harness.createSession();
    const recorder = new MutationRecorder(session);
    const turn = await session.prompt({ query: "delete a.txt" });
    const pending = await recorder.waitForPendingInteraction();
    expect(pending.interaction_id).toMatch(/^interaction:\d{6}$/);
    expect(pending.request.created_at).toBe(clock.now());
    expect(effects).toEqual([]);

    await session.respond(approve(pending.interaction_id), { user_id: "user:owner" });
    expect(await turn.finished).toEqual({ turn_id: turn.id, text: "done", success: true });
    expect(effects).toEqual(["a.txt"]);
    expect(recorder.toolStates("call_1")).toEqual([
      "input-streaming",
      "ready",
      "waiting-user",
      "running",
      "completed",
    ]);
    expect(recorder.toolPart("call_1")?.interactions?.[0]?.responded_by).toBe("user:owner");
    expect(model.calls).toHaveLength(2);
    expect(model.calls[1]?.tool_results.map((result) => result.tool_call_id)).toEqual(["call_1"]);
    expect(harness.logs.filter((entry) => entry.level === "error")).toEqual([]);
    recorder.stop();
    await harness.shutdown();
  });

  it("lets a second process resume a waiting Turn with its answer after the first one is killed", async () => {
    const effects: string[] = [];
    const { harness, model } = scriptedHarness(effects, [
      [{ tool_call: { id: "call_1", name: "delete_file", input: { path: "a.txt" } } }],
      [{ text: "done" }],
    ]);
    const session = await harness.createSession();
    const recorder = new MutationRecorder(session);
    await session.prompt({ query: "delete a.txt" });
    const pending = await recorder.waitForPendingInteraction();
    expect(harness.leases.holderOf(session.id)).toEqual({ process_id: "A", epoch: 1 });

    harness.sever("A");
    expect(harness.leases.holderOf(session.id)).toBeNull();
    await expect(session.status()).rejects.toThrow("Process A was killed");

    const b = harness.runtime("B");
    // A waiting Turn is rows (DESIGN §10.7): nobody takes it over until its answer.
    expect(await b.recover()).toEqual({ resumed_session_ids: [] });
    expect(harness.leases.holderOf(session.id)).toBeNull();
    const on_b = await b.openSession(session.id);
    if (!on_b) throw new Error("session exists");
    const finished = new MutationRecorder(on_b);
    await on_b.respond(approve(pending.interaction_id));
    await finished.waitForTurnFinish();
    expect(effects).toEqual(["a.txt"]);
    expect(finished.kinds().at(-1)).toBe("turn:finish");
    expect(finished.mutations.at(-1)).toMatchObject({ variant: "turn", status: "completed", text: "done" });
    expect(model.calls[1]?.tool_results.map((result) => result.tool_call_id)).toEqual(["call_1"]);
    expect(harness.logs.filter((entry) => entry.process_id === "B" && entry.level === "error")).toEqual([]);
    await harness.shutdown();
  });
});
