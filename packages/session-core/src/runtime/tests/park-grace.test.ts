import { describe, expect, it, vi } from "vitest";
import type { SessionCommit } from "../../ports/session-store.js";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import { DEFAULT_PARK_GRACE_MS } from "../turn/park-grace.js";
import { answeredToolIn, approve, turnFinish, untilHostless } from "./durable-fixtures.js";
import { createApprovalTool } from "./tools.js";

/**
 * The grace before a waiting Turn parks (`ParkGrace`, docs/behaviour.md#durability), in the
 * production configuration unless a test says otherwise: the Turn stays held for
 * `DEFAULT_PARK_GRACE_MS`, then parks.
 */
describe("the grace before a waiting Turn parks", () => {
  async function waitingInA(options: { park_grace_ms?: number; recovery_loop?: false } = {}) {
    const approval = createApprovalTool();
    const model = createScriptedModel([
      [{ tool_call: { id: "call_1", name: "delete_file", input: { path: "a.txt" } } }],
      [{ text: "all done" }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { delete_file: approval.tool }, ...options });
    const session = await harness.createSession({ process_id: "A" });
    const turn = await session.prompt({ query: "delete a.txt" });
    const interaction_id = await harness.pendingInteraction("call_1");
    return { harness, session, turn, interaction_id, effects: approval.effects };
  }

  /** A bounded number of the event loop's turns, not a time (no timer fires while timers are faked). */
  async function loopTurns(until: () => boolean): Promise<void> {
    for (let turn = 0; turn < 100 && !until(); turn += 1) {
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Within the event loop's turns: A gave the lease and host back, and the tool did nothing. */
  async function expectParkedByA(harness: RuntimeHarness, session_id: string, effects: string[]) {
    await loopTurns(() => harness.runtime("A").stats().hosts === 0);
    expect(harness.leases.holderOf(session_id)).toBeNull();
    expect(harness.runtime("A").stats()).toEqual({ hosts: 0 });
    expect(effects).toEqual([]);
  }

  it("the Turn stays held through its grace and parks when the grace's one timer fires", async () => {
    // Timers fire only when the test moves them; the commits and the event loop's turns still run.
    vi.useFakeTimers({ toFake: ["setTimeout", "setInterval"] });
    try {
      const { harness, session, effects } = await waitingInA({ recovery_loop: false });
      await loopTurns(() => false);
      expect(harness.leases.holderOf(session.id)).toEqual({ process_id: "A", epoch: 1 });
      expect(harness.runtime("A").stats()).toEqual({ hosts: 1 });
      // Even held, a Turn whose every tool waits for a person is a `waiting` row (DESIGN §10.7).
      expect(await harness.store.getActiveTurn(session.id)).toMatchObject({ state: "waiting" });

      vi.advanceTimersByTime(DEFAULT_PARK_GRACE_MS - 1);
      await loopTurns(() => false);
      expect(harness.runtime("A").stats()).toEqual({ hosts: 1 });
      vi.advanceTimersByTime(1);
      await expectParkedByA(harness, session.id, effects);
    } finally {
      vi.useRealTimers();
    }
  });

  it("an answer in the grace, where the Turn runs: one commit between respond and the side effect (resolved, running, handed over, fenced by the Turn's epoch), no read, no claim, no take-over", async () => {
    const { harness, session, turn, interaction_id, effects } = await waitingInA();
    const commits: SessionCommit[] = [];
    const reads: string[] = [];
    const { store } = harness;
    const commit = store.commit.bind(store);
    store.commit = async (change) => {
      // Only those before the side effect: respond → the tool's code going on.
      if (effects.length === 0) commits.push(change);
      return commit(change);
    };
    for (const name of [
      "getAnswerContext",
      "getSession",
      "getMessage",
      "listOpenAssistantMessages",
    ] as const) {
      const read = store[name].bind(store) as (...args: unknown[]) => Promise<unknown>;
      (store as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
        if (effects.length === 0) reads.push(name);
        return read(...args);
      };
    }
    expect(harness.leases.holderOf(session.id)).toEqual({ process_id: "A", epoch: 1 });
    const finished = turnFinish(harness, turn.id);
    await session.respond(approve(interaction_id));
    expect(await finished).toMatchObject({ status: "completed", text: "all done" });
    expect(await turn.finished).toMatchObject({ success: true, text: "all done" });
    expect(effects).toEqual(["a.txt"]);

    expect(commits).toHaveLength(1);
    // Judged on what this process committed last: nothing read.
    expect(reads).toEqual([]);
    const [answer] = commits;
    expect(answer?.claim).toBeUndefined();
    expect(answer?.epoch).toBe(1);
    expect(answeredToolIn(answer)).toEqual(["running", "resolved", true]);
    // The Turn went on where it waited: nobody took it over, and the model was not asked again.
    expect(harness.takenOverBy("A")).toEqual([]);
    expect(harness.logs.filter((entry) => entry.message.includes("resuming"))).toEqual([]);
    expect(harness.toolStates(session.id, "call_1")).toEqual(["waiting-user", "running", "completed"]);
  });

  it("two answers at once where the Turn runs, both judged on the copy in memory: one wins, the other is refused as the stored state says, the side effect runs once", async () => {
    const { harness, session, turn, interaction_id, effects } = await waitingInA();
    const deny = {
      interaction_id,
      response: { type: "approval", outcome: "denied" as const, payload: { decision: "denied" } },
    };
    const outcomes = await Promise.allSettled([
      session.respond(approve(interaction_id)),
      session.respond(deny),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected"]);
    const refused = outcomes[1]?.status === "rejected" ? outcomes[1].reason : undefined;
    expect(refused).toMatchObject({ code: "interaction_not_pending" });
    expect(await turn.finished).toMatchObject({ success: true, text: "all done" });
    expect(effects).toEqual(["a.txt"]);
    expect((await harness.tool(session.id, "call_1")).interactions?.[0]).toMatchObject({
      status: "resolved",
      resumed_at: expect.any(Number),
    });
  });

  it("an answer in the grace through another process: committed there without a claim; the holder hands it over and runs the side effect once", async () => {
    const { harness, session, turn, interaction_id, effects } = await waitingInA();
    const remote = await harness.runtime("B").openSession(session.id);
    const finished = turnFinish(harness, turn.id);
    expect(await remote?.respond(approve(interaction_id))).toMatchObject({ status: "resolved" });
    expect(await finished).toMatchObject({ status: "completed", text: "all done" });
    expect(await turn.finished).toMatchObject({ success: true, text: "all done" });
    expect(effects).toEqual(["a.txt"]);
    expect(harness.takenOverBy("B")).toEqual([]);
    expect((await harness.tool(session.id, "call_1")).interactions?.[0]).toMatchObject({
      status: "resolved",
      resumed_at: expect.any(Number),
    });
    await untilHostless(harness, "A");
    expect(harness.leases.holderOf(session.id)).toBeNull();
  });

  it("runtime.heldAnswer (the API's way in): the owner and an answer judged on memory where the tool waits, nothing elsewhere", async () => {
    const { harness, session, turn, interaction_id, effects } = await waitingInA();
    const runtime = harness.runtime("A");
    expect(runtime.heldAnswer(session.id, "interaction_unknown")).toBeUndefined();
    expect(harness.runtime("B").heldAnswer(session.id, interaction_id)).toBeUndefined();
    const held = runtime.heldAnswer(session.id, interaction_id);
    const record = await harness.store.getSession(session.id);
    expect(held?.owner_id).toBe(record?.owner_id);
    // Bound to its Interaction: an answer to another one is a caller's bug, refused before any check.
    await expect(held?.respond(approve("interaction_other"))).rejects.toThrow(
      `Prefetched Interaction ${interaction_id} is not interaction_other`,
    );

    expect(await held?.respond(approve(interaction_id), { user_id: "user_ada" })).toMatchObject({
      status: "resolved",
      interaction_id,
    });
    expect(await turn.finished).toMatchObject({ success: true, text: "all done" });
    expect(effects).toEqual(["a.txt"]);
    const answered = await harness.store.getInteraction(interaction_id);
    expect(answered?.interaction).toMatchObject({ status: "resolved", responded_by: "user_ada" });
    expect(runtime.heldAnswer(session.id, interaction_id)).toBeUndefined();
  });

  it("an answer after the grace resumes the parked Turn where it is committed", async () => {
    const { harness, session, turn, interaction_id, effects } = await waitingInA({ park_grace_ms: 20 });
    await untilHostless(harness, "A");
    expect(harness.leases.holderOf(session.id)).toBeNull();
    expect(harness.runtime("A").heldAnswer(session.id, interaction_id)).toBeUndefined();
    const finished = turnFinish(harness, turn.id);
    const remote = await harness.runtime("B").openSession(session.id);
    await remote?.respond(approve(interaction_id));
    expect(await finished).toMatchObject({ status: "completed", text: "all done" });
    expect(effects).toEqual(["a.txt"]);
  });

  it("variant: no grace (PARLEY_PARK_GRACE_MS=0) parks once the writes settled, on no timer", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "setInterval"] });
    try {
      const { harness, session, effects } = await waitingInA({ park_grace_ms: 0, recovery_loop: false });
      await expectParkedByA(harness, session.id, effects);
    } finally {
      vi.useRealTimers();
    }
  });
});
