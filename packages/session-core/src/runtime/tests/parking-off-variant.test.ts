import { describe, expect, it } from "vitest";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import { createApprovalTool } from "./tools.js";

const approve = (interaction_id: string) => ({
  interaction_id,
  response: { type: "approval", outcome: "resolved" as const, payload: { decision: "approved" } },
});

/**
 * Parking off (`park_waiting_turns: false`, the API's `PARLEY_PARK_WAITING_TURNS=off`): the owner
 * keeps a waiting Turn live, holding its lease, instead of leaving it as rows. Production parks
 * (DESIGN §10.7), so every other runtime suite runs parking on; these are the key G-scenarios of
 * the live-waiter path, with the recovery loop on as in production.
 */
describe("variant: parking off", () => {
  function waitingInA() {
    const approval = createApprovalTool();
    const model = createScriptedModel([
      [{ tool_call: { id: "call_1", name: "delete_file", input: { path: "a.txt" } } }],
      [{ text: "all done" }],
    ]);
    const harness = new RuntimeHarness({
      model,
      tools: { delete_file: approval.tool },
      park_waiting_turns: false,
    });
    return { harness, model, effects: approval.effects };
  }

  it("G25: the owner holds its waiting Turn; an answer through another process wakes the owner's tool, side effect once", async () => {
    const { harness, model, effects } = waitingInA();
    const session = await harness.createSession({ process_id: "A" });
    const turn = await session.prompt({ query: "delete a.txt" });
    const interaction_id = await harness.pendingInteraction("call_1");
    expect(harness.leases.holderOf(session.id)).toEqual({ process_id: "A", epoch: 1 });
    expect(harness.runtime("A").stats()).toEqual({ hosts: 1 });
    expect(await harness.store.getActiveTurn(session.id)).toMatchObject({ turn_id: turn.id, holder: "A" });

    const remote = await harness.runtime("B").openSession(session.id);
    expect(await remote?.respond(approve(interaction_id))).toMatchObject({ status: "resolved" });
    expect(await turn.finished).toEqual({ turn_id: turn.id, text: "all done", success: true });
    expect(effects).toEqual(["a.txt"]);
    expect(model.calls).toHaveLength(2);
    expect(harness.takenOverBy("B")).toEqual([]);
    expect(harness.toolStates(session.id, "call_1")).toEqual(["waiting-user", "running", "completed"]);
    expect(harness.liveToolStates(session.id, "call_1")).toEqual(["input-streaming", "ready"]);
    expect(harness.logs.filter((entry) => entry.level === "error")).toEqual([]);
    await harness.shutdown();
  });

  it("G49: the owner dies while its Turn waits; the pending approval survives as rows, and the answer through another process resumes the Turn there, side effect once", async () => {
    const { harness, model, effects } = waitingInA();
    const session = await harness.createSession({ process_id: "A" });
    const turn = await session.prompt({ query: "delete a.txt" });
    const interaction_id = await harness.pendingInteraction("call_1");
    await harness.kill("A");
    expect(await turn.finished).toMatchObject({ success: false });
    // Even held live, a Turn whose every tool waits for a person is a `waiting` row (DESIGN §10.7):
    // B's recovery loop (and a pass by hand) leaves it alone until its answer.
    const b = harness.runtime("B");
    expect(await harness.store.getActiveTurn(session.id)).toMatchObject({
      turn_id: turn.id,
      state: "waiting",
    });
    expect(await b.recover()).toEqual({ resumed_session_ids: [] });
    const resumed = await b.openSession(session.id);
    expect((await resumed?.interactions())?.map((request) => request.interaction_id)).toEqual([
      interaction_id,
    ]);

    const finished = harness.waitFor(
      (mutation) => mutation.variant === "turn" && mutation.type === "finish" && mutation.turn_id === turn.id,
    );
    expect(await resumed?.respond(approve(interaction_id))).toMatchObject({ status: "resolved" });
    expect(await finished).toMatchObject({ status: "completed", text: "all done" });
    expect(effects).toEqual(["a.txt"]);
    expect(model.calls).toHaveLength(2);
    expect((await harness.store.queryInteractions({ limit: 10 })).items).toHaveLength(1);
    const tool = await harness.tool(session.id, "call_1");
    expect(tool).toMatchObject({ state: "completed", output: { deleted: "a.txt" } });
    expect(tool.interactions).toHaveLength(1);
    expect(harness.takenOverBy("B")).toEqual([]);
    await harness.shutdown();
  });

  it("a holder that dies in a running Turn (its first model request in flight): another process's recovery loop ends it interrupted, once", async () => {
    const model = createScriptedModel([[{ block: "first-request" }, { text: "never" }]]);
    const harness = new RuntimeHarness({ model, park_waiting_turns: false });
    const session = await harness.createSession({ process_id: "A" });
    const turn = await session.prompt({ query: "hi" });
    await model.reached("first-request");
    await harness.kill("A");
    const finished = harness.waitFor(
      (mutation) => mutation.variant === "turn" && mutation.type === "finish" && mutation.turn_id === turn.id,
    );
    // B starts: its recovery loop's first pass (a server's startup recovery) takes the Turn over.
    harness.runtime("B");
    expect(await finished).toMatchObject({ status: "failed", error: "Turn interrupted by server restart" });
    expect(harness.takenOverBy("B")).toEqual([session.id]);
    expect(harness.mutations(session.id).filter((mutation) => mutation.variant === "turn")).toHaveLength(2);
    expect(await harness.store.getActiveTurn(session.id)).toBeNull();
    await harness.shutdown();
  });
});
