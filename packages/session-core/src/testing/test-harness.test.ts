import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { JsonValue } from "../schema/json.js";
import { define_agent_tool } from "../tools/define-agent-tool.js";
import { recordMutations } from "./mutation-recorder.js";
import { createTestHarness } from "./test-harness.js";

function approvalTool(effects: string[]) {
  return define_agent_tool({
    description: "Delete a file.",
    input_schema: z.object({ path: z.string() }),
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

const approve = (interaction_id: string) => ({
  interaction_id,
  response: { type: "approval", outcome: "resolved" as const, payload: { decision: "approved" } },
});

describe("createTestHarness", () => {
  it("runs a scripted Turn through an approval with fixed time and sequential ids", async () => {
    const effects: string[] = [];
    const harness = createTestHarness({
      tools: { delete_file: approvalTool(effects) },
      steps: [
        [{ text: "before" }, { tool_call: { id: "call_1", name: "delete_file", input: { path: "a.txt" } } }],
        [{ text: "done" }],
      ],
    });
    const session = await harness.createSession();
    const recorder = recordMutations(session);
    const turn = await session.prompt({ query: "delete a.txt" });
    const pending = await recorder.waitForPendingInteraction();
    expect(pending.interaction_id).toMatch(/^interaction:\d{6}$/);
    expect(pending.request.created_at).toBe(harness.clock.now());
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
    expect(harness.model.calls).toHaveLength(2);
    expect(harness.model.calls[1]?.tool_results.map((result) => result.tool_call_id)).toEqual(["call_1"]);
    expect(harness.logs.filter((entry) => entry.level === "error")).toEqual([]);
    recorder.stop();
    await harness.shutdown();
  });

  it("lets a second process take over a waiting Turn after the first one is killed", async () => {
    const effects: string[] = [];
    const harness = createTestHarness({
      tools: { delete_file: approvalTool(effects) },
      steps: [
        [{ tool_call: { id: "call_1", name: "delete_file", input: { path: "a.txt" } } }],
        [{ text: "done" }],
      ],
    });
    const session = await harness.createSession();
    const recorder = recordMutations(session);
    await session.prompt({ query: "delete a.txt" });
    const pending = await recorder.waitForPendingInteraction();
    expect(harness.leases.holderOf(session.id)).toEqual({ process_id: "A", epoch: 1 });

    harness.killProcess("A");
    expect(harness.leases.holderOf(session.id)).toBeNull();
    await expect(session.status()).rejects.toThrow("Process A was killed");

    const b = harness.startProcess("B");
    expect(await b.runtime.recover()).toEqual({ resumed_session_ids: [session.id] });
    expect(harness.leases.holderOf(session.id)).toEqual({ process_id: "B", epoch: 2 });
    const on_b = await b.runtime.openSession(session.id);
    if (!on_b) throw new Error("session exists");
    const finished = recordMutations(on_b);
    await on_b.respond(approve(pending.interaction_id));
    await finished.waitForTurnFinish();
    expect(effects).toEqual(["a.txt"]);
    expect(finished.kinds().at(-1)).toBe("turn:finish");
    expect(finished.mutations.at(-1)).toMatchObject({ variant: "turn", status: "completed", text: "done" });
    expect(harness.model.calls[1]?.tool_results.map((result) => result.tool_call_id)).toEqual(["call_1"]);
    expect(harness.logs.filter((entry) => entry.process_id === "B" && entry.level === "error")).toEqual([]);
    await harness.shutdown();
  });
});
