import { describe, expect, it } from "vitest";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import { createApprovalTool } from "./tools.js";

const approve = (interaction_id: string) => ({
  interaction_id,
  response: { type: "approval", outcome: "resolved" as const, payload: { decision: "approved" } },
});

async function untilHostless(harness: RuntimeHarness, process_id: string): Promise<void> {
  while (harness.runtime(process_id).stats().hosts > 0) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The Turn row (DESIGN §10.7) as the runtime writes and reads it. */
describe("the Turn row", () => {
  it("a Turn whose first model request is in flight is running with its id on every process", async () => {
    const model = createScriptedModel([[{ block: "first-request" }, { text: "hello" }]]);
    const harness = new RuntimeHarness({ model });
    const session = await harness.createSession({ process_id: "A" });
    const turn = await session.prompt({ query: "hi" });
    await model.reached("first-request");
    // Nothing of the model's output is committed yet: no assistant message exists.
    expect(await harness.assistants(session.id)).toEqual([]);
    const remote = await harness.runtime("B").openSession(session.id);
    expect(await remote?.status()).toMatchObject({ state: "running", active_turn_id: turn.id });
    expect(await remote?.info()).toMatchObject({ state: "running" });
    expect(await harness.store.getActiveTurn(session.id)).toMatchObject({
      turn_id: turn.id,
      state: "running",
      holder: "A",
      epoch: 1,
    });
    model.release("first-request");
    expect(await turn.finished).toMatchObject({ success: true, text: "hello" });
    expect(await remote?.status()).toMatchObject({ state: "idle" });
    expect(await harness.store.getActiveTurn(session.id)).toBeNull();
    await harness.shutdown();
  });

  it("a holder that died during the first model request: recovery ends its Turn interrupted, once", async () => {
    const model = createScriptedModel([[{ block: "first-request" }, { text: "never" }]]);
    const harness = new RuntimeHarness({ model });
    const session = await harness.createSession({ process_id: "A" });
    const turn = await session.prompt({ query: "hi" });
    await model.reached("first-request");
    await harness.kill("A");
    expect(await harness.store.listTurnsNeedingDriver({ limit: 10 })).toMatchObject([
      { turn_id: turn.id, state: "running" },
    ]);
    // B starts: its recovery loop's first pass (a server's startup recovery) takes the Turn over.
    const b = harness.runtime("B");
    await harness.waitFor(
      (mutation) => mutation.variant === "turn" && mutation.type === "finish" && mutation.turn_id === turn.id,
    );
    expect(harness.takenOverBy("B")).toEqual([session.id]);
    expect(harness.mutations(session.id).filter((mutation) => mutation.variant === "turn")).toMatchObject([
      { type: "start" },
      { type: "finish", status: "failed", error: "Turn interrupted by server restart" },
    ]);
    expect(await harness.store.getActiveTurn(session.id)).toBeNull();
    expect(await harness.store.listTurnsNeedingDriver({ limit: 10 })).toEqual([]);
    expect(await b.recover()).toEqual({ resumed_session_ids: [] });
    await harness.shutdown();
  });

  it("a prompt queued behind a waiting Turn wakes nothing; after the answer it runs in that Turn, once", async () => {
    const approval = createApprovalTool();
    const model = createScriptedModel([
      [{ tool_call: { id: "call_1", name: "delete_file", input: { path: "a" } } }],
      [{ text: "after the answer" }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { delete_file: approval.tool } });
    const session = await harness.createSession({ process_id: "A" });
    const turn = await session.prompt({ query: "delete" });
    const interaction_id = await harness.pendingInteraction("call_1");
    await untilHostless(harness, "A");
    expect(await harness.store.getActiveTurn(session.id)).toMatchObject({ state: "waiting" });
    const b = harness.runtime("B");
    const remote = await b.openSession(session.id);
    const epoch = harness.store.leaseEpoch(session.id);
    const queued = await remote?.prompt({ query: "and then this" });
    expect(queued?.id).toBe(turn.id);
    await untilHostless(harness, "B");
    // The prompt and sweeps on both processes: nobody takes the lease (the epoch stays put).
    await harness.runtime("A").sweepCommands();
    await b.sweepCommands();
    expect(await b.recover()).toEqual({ resumed_session_ids: [] });
    expect(harness.store.leaseEpoch(session.id)).toBe(epoch);
    expect(harness.leases.holderOf(session.id)).toBeNull();
    expect(approval.effects).toEqual([]);

    await remote?.respond(approve(interaction_id));
    expect(await turn.finished).toMatchObject({ success: true, text: "after the answer" });
    const users = (await harness.messages(session.id)).filter((message) => message.type === "user");
    expect(
      users.map(
        (message) => message.type === "user" && message.parts[0]?.type === "text" && message.parts[0].text,
      ),
    ).toEqual(["delete", "and then this"]);
    expect(approval.effects).toEqual(["a"]);
    expect(model.calls).toHaveLength(2);
    expect(await harness.store.listQueuedCommands(session.id)).toEqual([]);
    await harness.shutdown();
  });

  it("1,500 sessions with queued prompts are all driven by one sweep (no cap starves newer ones)", async () => {
    const model = createScriptedModel(Array.from({ length: 1_500 }, () => [{ text: "ok" }]));
    // No periodic sweep: the one sweep below is all that drives them.
    const harness = new RuntimeHarness({ model, command_sweep_ms: 0 });
    const sessions = [];
    for (let index = 0; index < 1_500; index += 1)
      sessions.push(await harness.createSession({ process_id: "A" }));
    // Committed straight to the store, as another instance that died right after would leave them.
    for (const [index, session] of sessions.entries()) {
      await harness.store.enqueueCommand({
        session_id: session.id,
        command_id: `command:${index}`,
        command: { kind: "prompt", input: { query: `q${index}` } },
        created_at: index,
        new_turn_id: `turn:${index}`,
      });
    }
    expect(await harness.store.listSessionsWithQueuedCommands({ limit: 2_000 })).toHaveLength(1_500);
    // Past the grace a freshly queued Turn gets (its own instance would have started it by then).
    await new Promise((resolve) => setTimeout(resolve, 600));
    await harness.runtime("B").sweepCommands();
    const deadline = Date.now() + 20_000;
    let left = 1_500;
    while (left > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      left = (await harness.store.listSessionsWithQueuedCommands({ limit: 2_000 })).length;
    }
    expect(left).toBe(0);
    expect(model.calls).toHaveLength(1_500);
    await harness.shutdown();
  }, 60_000);
});
