import { describe, expect, it } from "vitest";
import { InMemorySessionStore } from "../../adapters/in-memory-session-store.js";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import { createApprovalTool } from "./tools.js";

/** Polls `check` every 5 ms until it holds; fails at the deadline. */
async function until(what: string, check: () => boolean | Promise<boolean>, deadline_ms = 5_000) {
  const deadline = Date.now() + deadline_ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${deadline_ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Counts every call the runtime makes on the harness's store, by method, from now on. */
function countStoreCalls(store: InMemorySessionStore): Map<string, number> {
  const calls = new Map<string, number>();
  for (const name of Object.getOwnPropertyNames(InMemorySessionStore.prototype)) {
    const method: unknown = Reflect.get(store, name);
    if (name === "constructor" || typeof method !== "function") continue;
    Reflect.set(store, name, (...args: unknown[]) => {
      calls.set(name, (calls.get(name) ?? 0) + 1);
      return method.apply(store, args);
    });
  }
  return calls;
}

/**
 * The liveness pass (`recover()`, every second in the server): one read finds the Turns whose
 * holder is gone and the queued commands nobody drives. No sweep timer runs here
 * (`command_sweep_ms: 0`): each case is driven by its one explicit pass, or by the same pass of a
 * recovery loop where the harness runs one.
 */
describe("the liveness pass", () => {
  it("a stop committed without reaching the Turn running here is applied by one recover()", async () => {
    const model = createScriptedModel([[{ block: "first-request" }, { text: "never" }]]);
    const harness = new RuntimeHarness({ model, command_sweep_ms: 0 });
    const session = await harness.createSession({ process_id: "A" });
    const turn = await session.prompt({ query: "hi" });
    await model.reached("first-request");
    // Committed straight to the store, as an instance that died right after its commit leaves it.
    const { command } = await harness.store.enqueueCommand({
      session_id: session.id,
      command_id: "command:stop",
      command: { kind: "stop", input: { reason: "turn_stopped" } },
      created_at: Date.now(),
    });
    expect(command.status).toBe("queued");

    expect(await harness.runtime("A").recover()).toEqual({ resumed_session_ids: [] });
    expect(await turn.finished).toMatchObject({ success: false, error: "Turn stopped" });
    expect(await harness.store.getCommand(session.id, "command:stop")).toMatchObject({ status: "applied" });
    expect(harness.mutations(session.id).filter((mutation) => mutation.variant === "turn")).toMatchObject([
      { type: "start", turn_id: turn.id },
      { type: "finish", status: "stopped", turn_id: turn.id },
    ]);
    await harness.shutdown();
  });

  it("a prompt whose instance never started its Turn is started by one recover() on another, after the grace", async () => {
    const model = createScriptedModel([[{ text: "started elsewhere" }]]);
    const harness = new RuntimeHarness({ model, command_sweep_ms: 0 });
    const session = await harness.createSession({ process_id: "A" });
    await harness.kill("A");
    await harness.store.enqueueCommand({
      session_id: session.id,
      command_id: "command:prompt",
      command: { kind: "prompt", input: { query: "hello" } },
      created_at: Date.now(),
      new_turn_id: "turn:orphan",
    });
    // The grace a queued Turn gets before another instance drives it (its own would have by then).
    const pastGrace = { turn_limit: 10, command_session_limit: 10, queued_grace_ms: 250 };
    await until("the queued Turn is past its grace", async () => {
      const work = await harness.store.listWorkNeedingDriver(pastGrace);
      return work.turns.length === 1;
    });

    expect(await harness.runtime("B").recover()).toEqual({ resumed_session_ids: [] });
    const finish = await harness.waitFor(
      (mutation) =>
        mutation.variant === "turn" && mutation.type === "finish" && mutation.turn_id === "turn:orphan",
    );
    expect(finish).toMatchObject({ status: "completed" });
    expect(model.calls).toHaveLength(1);
    expect(await harness.store.listQueuedCommands(session.id)).toEqual([]);
    await harness.shutdown();
  });

  it("at rest, with a Turn waiting for a person, a pass reads nothing but its one statement", async () => {
    const approval = createApprovalTool();
    const model = createScriptedModel([
      [{ tool_call: { id: "call_1", name: "delete_file", input: { path: "a" } } }],
      [{ text: "done" }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { delete_file: approval.tool }, command_sweep_ms: 0 });
    const session = await harness.createSession({ process_id: "A" });
    await session.prompt({ query: "delete" });
    await harness.pendingInteraction("call_1");
    await until("the waiting Turn is parked", () => harness.runtime("A").stats().hosts === 0);
    // A prompt behind the waiting Turn needs no driver either.
    await session.prompt({ query: "and then" });
    await until("the prompt's host is dropped", () => harness.runtime("A").stats().hosts === 0);

    const calls = countStoreCalls(harness.store);
    expect(await harness.runtime("A").recover()).toEqual({ resumed_session_ids: [] });
    expect(await harness.runtime("B").recover()).toEqual({ resumed_session_ids: [] });
    // A recovery loop, where the harness runs one, makes passes of its own: each is the same read.
    expect([...calls.keys()]).toEqual(["listWorkNeedingDriver"]);
    expect(calls.get("listWorkNeedingDriver")).toBeGreaterThanOrEqual(2);
    expect(approval.effects).toEqual([]);
    await harness.shutdown();
  });
});
