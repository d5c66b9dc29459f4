import { describe, expect, it } from "vitest";
import type { SessionCommit } from "../../ports/session-store.js";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import { answeredToolIn, approve, turnFinish, untilHostless, waitingInA } from "./durable-fixtures.js";
import { createApprovalTool } from "./tools.js";

describe("a waiting Turn is rows", () => {
  /** A Turn of process A whose tools each wait for an approval, not waited for to park. */
  async function waitingInA(
    tool_call_ids = ["call_1"],
    options: { recovery_loop?: false; beforeEffect?: () => Promise<void> } = {},
  ) {
    const { beforeEffect, ...runtimeOptions } = options;
    const approval = createApprovalTool("delete_file", beforeEffect);
    const model = createScriptedModel([
      tool_call_ids.map((id, index) => ({
        tool_call: { id, name: "delete_file", input: { path: `file-${index}` } },
      })),
      [{ text: "all done" }],
    ]);
    const harness = new RuntimeHarness({
      model,
      tools: { delete_file: approval.tool },
      park_waiting_turns: true,
      ...runtimeOptions,
    });
    const session = await harness.createSession({ process_id: "A" });
    const turn = await session.prompt({ query: "delete" });
    const interaction_ids: string[] = [];
    for (const id of tool_call_ids) interaction_ids.push(await harness.pendingInteraction(id));
    return { harness, session, turn, interaction_ids, effects: approval.effects };
  }

  /** `waitingInA`, once the Turn has parked (process A holds nothing of it). */
  async function parkedInA(...args: Parameters<typeof waitingInA>) {
    const waiting = await waitingInA(...args);
    await untilHostless(waiting.harness, "A");
    return waiting;
  }

  it("once every open tool waits for a person, the Turn holds no lease and no host; recovery leaves it alone", async () => {
    const { harness, session } = await parkedInA();
    expect(harness.leases.holderOf(session.id)).toBeNull();
    expect(harness.runtime("A").stats()).toEqual({ hosts: 0 });
    expect(await harness.runtime("B").recover()).toEqual({ resumed_session_ids: [] });
    expect(await session.status()).toMatchObject({ state: "running" });
    expect(await session.interactions()).toHaveLength(1);
  });

  it("the process that commits the answer resumes the Turn by replay; the side effect runs once", async () => {
    const { harness, session, turn, interaction_ids, effects } = await parkedInA();
    const remote = await harness.runtime("B").openSession(session.id);
    const finished = turnFinish(harness, turn.id);
    await remote?.respond(approve(interaction_ids[0] ?? ""));
    expect(await finished).toMatchObject({ status: "completed", text: "all done" });
    expect(await turn.finished).toMatchObject({ success: true, text: "all done" });
    expect(effects).toEqual(["file-0"]);
    expect((await harness.tool(session.id, "call_1")).interactions).toHaveLength(1);
  });

  it("the answer claims the Turn: one commit between respond and the side effect (resolved, running, handed over, claimed)", async () => {
    const { harness, session, turn, interaction_ids, effects } = await parkedInA();
    const commits: SessionCommit[] = [];
    const commit = harness.store.commit.bind(harness.store);
    harness.store.commit = async (change) => {
      // Only those before the side effect: respond → the tool's code going on.
      if (effects.length === 0) commits.push(change);
      return commit(change);
    };
    const remote = await harness.runtime("B").openSession(session.id);
    const finished = turnFinish(harness, turn.id);
    await remote?.respond(approve(interaction_ids[0] ?? ""));
    expect(await finished).toMatchObject({ status: "completed", text: "all done" });
    expect(effects).toEqual(["file-0"]);
    expect(commits).toHaveLength(1);
    const [answer] = commits;
    expect(answer?.claim).toEqual({ holder: "B", turn_id: turn.id });
    expect(answer?.epoch).toBeUndefined();
    expect(answeredToolIn(answer)).toEqual(["running", "resolved", true]);
    expect(await harness.store.getActiveTurn(session.id)).toBeNull();
  });

  it("two answers at once: the one that lost gives its claim back and reads the Turn again, so the winner's answer resumes it", async () => {
    // No recovery loop: the wake-up must not wait for a liveness pass.
    const { harness, session, turn, interaction_ids, effects } = await parkedInA(["call_1"], {
      recovery_loop: false,
    });
    const interaction_id = interaction_ids[0] ?? "";
    // B takes the lock first, and its commit waits until A's answer (refused the lock, so committed
    // without a claim) is in: A's own re-read then finds the session locked by B.
    let releaseClaim: () => void = () => undefined;
    const claimGate = new Promise<void>((resolve) => {
      releaseClaim = resolve;
    });
    const commit = harness.store.commit.bind(harness.store);
    harness.store.commit = async (change) => {
      if (change.claim) await claimGate;
      return commit(change);
    };
    const remote = await harness.runtime("B").openSession(session.id);
    const finished = turnFinish(harness, turn.id);
    const viaB = remote?.respond(approve(interaction_id));
    while (harness.leases.holderOf(session.id)?.process_id !== "B")
      await new Promise((r) => setTimeout(r, 1));
    await expect(session.respond(approve(interaction_id))).resolves.toMatchObject({ status: "resolved" });
    releaseClaim();
    await expect(viaB).rejects.toMatchObject({ code: "interaction_not_pending" });
    expect(await finished).toMatchObject({ status: "completed", text: "all done" });
    expect(effects).toEqual(["file-0"]);
  });

  it("a resumed tool reading its answer from a store slower than a timer tick is not parked again", async () => {
    const { harness, session, turn, interaction_ids, effects } = await parkedInA();
    // Postgres answers in milliseconds, the in-memory store in microtasks: the resumed tool registers
    // its waiter, then reads the stored answer; the Turn must not take that moment for "waiting".
    const getMessage = harness.store.getMessage.bind(harness.store);
    harness.store.getMessage = async (session_id, message_id) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return getMessage(session_id, message_id);
    };
    const remote = await harness.runtime("B").openSession(session.id);
    const finished = turnFinish(harness, turn.id);
    await remote?.respond(approve(interaction_ids[0] ?? ""));
    expect(await finished).toMatchObject({ status: "completed", text: "all done" });
    expect(effects).toEqual(["file-0"]);
  });

  it("respond acknowledges once the answer is committed; resuming the parked Turn does not delay it", async () => {
    // The resumed tool is held just before its side effect: the reply must not wait for it (with
    // Postgres, the resume and the answer's delivery race; a reply that waited for them would lag the
    // committed answer its client already sees).
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reachedEffect: () => void = () => undefined;
    const atEffect = new Promise<void>((resolve) => {
      reachedEffect = resolve;
    });
    const { harness, session, turn, interaction_ids, effects } = await parkedInA(["call_1"], {
      beforeEffect: () => {
        reachedEffect();
        return gate;
      },
    });
    let openReads = 0;
    let queueReads = 0;
    const listOpen = harness.store.listOpenAssistantMessages.bind(harness.store);
    harness.store.listOpenAssistantMessages = async (session_id) => {
      openReads += 1;
      return listOpen(session_id);
    };
    const listQueued = harness.store.listQueuedCommands.bind(harness.store);
    harness.store.listQueuedCommands = async (session_id) => {
      queueReads += 1;
      return listQueued(session_id);
    };
    let messageReads = 0;
    const getMessage = harness.store.getMessage.bind(harness.store);
    harness.store.getMessage = async (session_id, message_id) => {
      messageReads += 1;
      return getMessage(session_id, message_id);
    };
    const remote = await harness.runtime("B").openSession(session.id);
    const finished = turnFinish(harness, turn.id);
    const result = await remote?.respond(approve(interaction_ids[0] ?? ""));
    expect(result).toMatchObject({ status: "resolved" });
    await atEffect;
    expect(effects).toEqual([]);
    // The resume read neither the open message (its answer just committed it) nor the queue (the
    // claiming commit reported it), and the answer read its message with the Interaction.
    expect({ openReads, queueReads, messageReads }).toEqual({ openReads: 0, queueReads: 0, messageReads: 0 });
    release();
    expect(await finished).toMatchObject({ status: "completed", text: "all done" });
    expect(effects).toEqual(["file-0"]);
    await untilHostless(harness, "B");
    // Nor did the checkpoint after the tool (the tool's commit reported the queue): the one read is
    // the queue check after the finished Turn gave the lease back.
    expect({ openReads, queueReads }).toEqual({ openReads: 0, queueReads: 1 });
  });

  it("two waiting tools: each answer resumes the Turn; the first answer's tool runs, the other parks again", async () => {
    const { harness, session, turn, interaction_ids, effects } = await parkedInA(["call_1", "call_2"]);
    const finished = turnFinish(harness, turn.id);
    await session.respond(approve(interaction_ids[0] ?? ""));
    await harness.waitFor(
      (mutation) =>
        mutation.variant === "part" && mutation.part.type === "tool" && mutation.part.state === "completed",
    );
    await untilHostless(harness, "A");
    expect(effects).toEqual(["file-0"]);
    const remote = await harness.runtime("B").openSession(session.id);
    await remote?.respond(approve(interaction_ids[1] ?? ""));
    expect(await finished).toMatchObject({ status: "completed", text: "all done" });
    expect(effects).toEqual(["file-0", "file-1"]);
  });

  it("a stop from any process stops a parked Turn", async () => {
    const { harness, session, turn } = await parkedInA();
    const remote = await harness.runtime("B").openSession(session.id);
    expect(await remote?.stop()).toEqual({
      stopped: true,
      turn_id: turn.id,
      cancelled_queued_prompts: 0,
      reason: "stopped",
    });
    expect(await session.interactions()).toEqual([]);
  });
});

describe("no lost wake-up", () => {
  it("an answer whose bus notice was lost still reaches the tool of the Turn held by a live process", async () => {
    const { harness, session, turn, interaction_ids, effects } = await waitingInA();
    const publish = harness.bus.publish.bind(harness.bus);
    let dropped = 0;
    harness.bus.publish = async (events) => {
      // The answer's notice never arrives (a lost NOTIFY, a dead LISTEN connection).
      if (events.session_events.some((event) => event.mutation.variant === "part")) {
        dropped += 1;
        return;
      }
      await publish(events);
    };
    const remote = await harness.runtime("B").openSession(session.id);
    await remote?.respond(approve(interaction_ids[0] ?? ""));
    harness.bus.publish = publish;
    expect(dropped).toBe(1);
    expect(await turn.finished).toMatchObject({ success: true, text: "all done" });
    expect(effects).toEqual(["file-0"]);
  });
});
