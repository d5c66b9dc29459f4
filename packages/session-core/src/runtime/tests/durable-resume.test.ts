import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { SessionCommit } from "../../ports/session-store.js";
import type { JsonValue } from "../../schema/json.js";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import { createTestClock } from "../../testing/test-clock.js";
import { define_agent_tool } from "../../tools/define-agent-tool.js";
import { respondToInteraction } from "../transitions/interaction-transitions.js";
import { approve, turnFinish, untilHostless, waitingInA } from "./durable-fixtures.js";
import { createApprovalTool, createBlockingTool } from "./tools.js";

/**
 * `respond`'s commit (Interaction `resolved` + tool `running`, one revision) as it lands in the store
 * when the process that made it dies before publishing: the owner never observes it.
 */
async function commitResponseUnseen(harness: RuntimeHarness, session_id: string, interaction_id: string) {
  const [message] = await harness.assistants(session_id);
  if (!message) throw new Error("no assistant message");
  const now = Date.now();
  const answered = respondToInteraction(message, approve(interaction_id), now);
  const part = answered.message.parts.find((item) => item.type === "tool");
  const interaction = part?.type === "tool" ? part.interactions?.[0] : undefined;
  if (part?.type !== "tool" || !interaction) throw new Error("no answered interaction");
  await harness.store.commit({
    session_id,
    // The writer commits the Turn row's state with every revision (an answer makes it `running`).
    ...(message.turn_id === undefined ? {} : { turn: { turn_id: message.turn_id, state: "running" } }),
    message: {
      snapshot: { ...answered.message, revision: message.revision + 1, updated_at: now },
      expected_revision: message.revision,
    },
    interactions: [
      {
        session_id,
        message_id: message.message_id,
        tool_call_id: part.tool_call_id,
        tool_name: part.tool_name,
        ordinal: 0,
        interaction,
      },
    ],
  });
}

describe("durable resume", () => {
  it("G49 (resume): after the owner dies, recovery re-attaches the pending approval; the answer runs the side effect once", async () => {
    const { harness, session, turn, interaction_ids, effects, model } = await waitingInA();
    await harness.kill("A");
    expect(await turn.finished).toMatchObject({ success: false });
    const b = harness.runtime("B");
    // The Turn waits for a person: its row needs no driver until the answer (DESIGN §10.7).
    expect(await harness.store.getActiveTurn(session.id)).toMatchObject({ state: "waiting" });
    expect(await b.recover()).toEqual({ resumed_session_ids: [] });
    const resumed = await b.openSession(session.id);
    expect((await resumed?.interactions())?.map((request) => request.interaction_id)).toEqual(
      interaction_ids,
    );
    const finished = turnFinish(harness, turn.id);
    await resumed?.respond(approve(interaction_ids[0] ?? ""));
    expect(await finished).toMatchObject({ status: "completed", text: "all done" });
    expect(effects).toEqual(["file-0"]);
    expect(model.calls).toHaveLength(2);
    expect((await harness.store.queryInteractions({ limit: 10 })).items).toHaveLength(1);
    const tool = await harness.tool(session.id, "call_1");
    expect(tool).toMatchObject({ state: "completed", output: { deleted: "file-0" } });
    expect(tool.interactions).toHaveLength(1);
    const [assistant] = await harness.assistants(session.id);
    expect(assistant).toMatchObject({ status: "completed", turn_id: turn.id });
  });

  it("a respond arriving at a process while no one owns the Turn takes it over and completes it", async () => {
    const { harness, session, turn, interaction_ids, effects } = await waitingInA();
    await harness.kill("A");
    const resumed = await harness.runtime("B").openSession(session.id);
    const finished = turnFinish(harness, turn.id);
    expect(await resumed?.respond(approve(interaction_ids[0] ?? ""))).toMatchObject({ status: "resolved" });
    expect(await finished).toMatchObject({ status: "completed", text: "all done" });
    expect(effects).toEqual(["file-0"]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(harness.leases.holderOf(session.id)).toBeNull();
  });

  it("a respond taken by another live process wakes the owner's tool through the bus", async () => {
    const { harness, session, turn, interaction_ids, effects } = await waitingInA();
    const remote = await harness.runtime("B").openSession(session.id);
    await remote?.respond(approve(interaction_ids[0] ?? ""));
    expect(await turn.finished).toMatchObject({ success: true, text: "all done" });
    expect(effects).toEqual(["file-0"]);
  });

  it("several waiting tools resume independently and each side effect runs once", async () => {
    const { harness, session, turn, interaction_ids, effects } = await waitingInA(["call_1", "call_2"]);
    await harness.kill("A");
    const b = harness.runtime("B");
    await b.recover();
    const resumed = await b.openSession(session.id);
    const finished = turnFinish(harness, turn.id);
    await resumed?.respond(approve(interaction_ids[1] ?? ""));
    await harness.waitFor(
      (mutation) =>
        mutation.variant === "part" &&
        mutation.part.type === "tool" &&
        mutation.part.tool_call_id === "call_2" &&
        mutation.part.state === "completed",
    );
    expect((await harness.tool(session.id, "call_1")).state).toBe("waiting-user");
    await resumed?.respond(approve(interaction_ids[0] ?? ""));
    expect(await finished).toMatchObject({ status: "completed" });
    expect(effects.sort()).toEqual(["file-0", "file-1"]);
    expect((await harness.store.queryInteractions({ limit: 10 })).items).toHaveLength(2);
  });

  it("an approval answered before the crash is returned at once to the re-run tool, without a new Interaction", async () => {
    const { harness, session, turn, interaction_ids, effects } = await waitingInA();
    await harness.kill("A");
    const b = harness.runtime("B");
    const opened = await b.openSession(session.id);
    // Answer first (B takes the lease and resumes), then a recovery pass finds nothing left to do.
    const finished = turnFinish(harness, turn.id);
    await opened?.respond(approve(interaction_ids[0] ?? ""));
    await finished;
    expect(await b.recover()).toEqual({ resumed_session_ids: [] });
    expect(effects).toEqual(["file-0"]);
  });

  it("a tool that was running (approved, doing its side effect) when its owner died fails as interrupted; the Turn continues", async () => {
    let release!: () => void;
    const effectStarted: string[] = [];
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tool = define_agent_tool({
      description: "Approval, then a long side effect.",
      input_schema: z.object({}),
      async execute(_input, context): Promise<JsonValue> {
        const decision = await context.interactions.approval.request({
          turn_id: context.turn_id,
          tool_call_id: context.tool_call_id,
          payload: { operation: "tool" },
        });
        if (!decision.approved) return "denied";
        effectStarted.push(context.tool_call_id);
        await gate;
        return "done";
      },
    });
    const model = createScriptedModel([
      [{ tool_call: { id: "call_run", name: "slow", input: {} } }],
      [{ text: "recovered" }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { slow: tool } });
    const session = await harness.createSession({ process_id: "A" });
    const turn = await session.prompt({ query: "run" });
    const interaction_id = await harness.pendingInteraction("call_run");
    await session.respond(approve(interaction_id));
    await harness.waitFor(
      (mutation) =>
        mutation.variant === "part" && mutation.part.type === "tool" && mutation.part.state === "running",
    );
    await harness.kill("A");
    // A handed the answer over (its tool ran on), so this `running` tool may have done its work.
    expect((await harness.tool(session.id, "call_run")).interactions?.[0]).toMatchObject({
      status: "resolved",
      resumed_at: expect.any(Number),
    });
    release();
    const finished = turnFinish(harness, turn.id);
    // B starts: its recovery loop's first pass (a server's startup recovery) takes the Turn over.
    harness.runtime("B");
    expect(await finished).toMatchObject({ status: "completed", text: "recovered" });
    expect(harness.takenOverBy("B")).toEqual([session.id]);
    expect(effectStarted).toEqual(["call_run"]);
    expect(await harness.tool(session.id, "call_run")).toMatchObject({
      state: "failed",
      error: "Tool interrupted by server restart",
    });
    expect(model.calls[1]?.tool_results).toEqual([
      {
        tool_call_id: "call_run",
        tool_name: "slow",
        output: { type: "error-text", value: "Tool interrupted by server restart" },
      },
    ]);
  });

  it("an answer committed right before the owner died, never handed over, runs the tool again: side effect once", async () => {
    const { harness, session, turn, interaction_ids, effects, model } = await waitingInA();
    await commitResponseUnseen(harness, session.id, interaction_ids[0] ?? "");
    expect(await harness.tool(session.id, "call_1")).toMatchObject({ state: "running" });
    await harness.kill("A");
    expect(effects).toEqual([]);
    const finished = turnFinish(harness, turn.id);
    // B starts: its recovery loop's first pass (a server's startup recovery) takes the Turn over.
    harness.runtime("B");
    expect(await finished).toMatchObject({ status: "completed", text: "all done" });
    expect(harness.takenOverBy("B")).toEqual([session.id]);
    expect(harness.takenOverBy("B")).toEqual([session.id]);
    expect(effects).toEqual(["file-0"]);
    const tool = await harness.tool(session.id, "call_1");
    expect(tool).toMatchObject({ state: "completed", output: { deleted: "file-0" } });
    expect(tool.interactions).toHaveLength(1);
    expect(tool.interactions?.[0]).toMatchObject({ status: "resolved", resumed_at: expect.any(Number) });
    expect((await harness.store.getInteraction(interaction_ids[0] ?? ""))?.interaction.resumed_at).toBe(
      tool.interactions?.[0]?.resumed_at,
    );
    expect(model.calls[1]?.tool_results).toEqual([
      {
        tool_call_id: "call_1",
        tool_name: "delete_file",
        output: { type: "json", value: { deleted: "file-0" } },
      },
    ]);
    // Durable states only: `input-streaming` and `ready` were live (DESIGN §10.6).
    expect(harness.toolStates(session.id, "call_1")).toEqual(["waiting-user", "completed"]);
  });

  it("a former owner fenced at the hand-over never runs the side effect; the new owner runs it once", async () => {
    const { harness, session, turn, interaction_ids, effects } = await waitingInA();
    const commit = harness.store.commit.bind(harness.store);
    let fencedHandOvers = 0;
    harness.store.commit = async (change: SessionCommit) => {
      const handOver =
        change.epoch === 1 &&
        change.interactions?.some((record) => record.interaction.resumed_at !== undefined);
      if (handOver) {
        // Another process took the session over between A deciding to hand the answer over and
        // committing the hand-over.
        fencedHandOvers += 1;
        await harness.store.setLeaseEpoch(session.id, 2);
      }
      return commit(change);
    };
    await session.respond(approve(interaction_ids[0] ?? ""));
    await untilHostless(harness, "A");
    // Two, both refused: the answer's own (it then commits as a plain answer, as another process's
    // would), and the waiting tool's when that answer reached it.
    expect(fencedHandOvers).toBe(2);
    expect((await harness.tool(session.id, "call_1")).interactions?.[0]?.status).toBe("resolved");
    expect(effects).toEqual([]);
    expect((await harness.tool(session.id, "call_1")).interactions?.[0]?.resumed_at).toBeUndefined();
    harness.store.commit = commit;
    await harness.kill("A");
    const finished = turnFinish(harness, turn.id);
    // B starts: its recovery loop's first pass (a server's startup recovery) takes the Turn over.
    harness.runtime("B");
    expect(await finished).toMatchObject({ status: "completed", text: "all done" });
    expect(effects).toEqual(["file-0"]);
  });

  it("a tool that acts only after asking and was only live `ready` when its owner died is lost with the Step's live state: the Turn ends interrupted, the tool never runs again", async () => {
    // `after_asking`: no checkpoint before `execute` (its approval would be one); a default tool
    // is committed `running` first (checkpoint 4, side-effect-tools.test.ts).
    const blocking = createBlockingTool({ side_effects: "after_asking" });
    const model = createScriptedModel([
      [{ tool_call: { id: "call_ready", name: "slow", input: {} } }],
      [{ text: "again" }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { slow: blocking.tool } });
    const session = await harness.createSession({ process_id: "A" });
    const turn = await session.prompt({ query: "run" });
    await blocking.started;
    await harness.kill("A");
    blocking.finish("second run");
    const finished = turnFinish(harness, turn.id);
    // B starts: its recovery loop's first pass (a server's startup recovery) takes the Turn over.
    harness.runtime("B");
    expect(await finished).toMatchObject({ status: "failed", error: "Turn interrupted by server restart" });
    expect(harness.takenOverBy("B")).toEqual([session.id]);
    // Nothing of the Step was committed (the tool asked nothing and has no checkpoint of its own
    // here), so there is no assistant message to resume: only the prompt and the error remain.
    expect((await harness.messages(session.id)).map((message) => message.type)).toEqual(["user", "error"]);
    expect(model.calls).toHaveLength(1);
    // The live message, the tool's start, its input, its `ready`.
    expect(harness.liveMutations(session.id).map((mutation) => mutation.variant)).toEqual([
      "message",
      "part",
      "part",
      "part",
    ]);
  });

  it("a crash mid-stream loses only the live state: the Step is not replayed, turn_interrupted error, failed Turn", async () => {
    const model = createScriptedModel([[{ text: "partial" }, { block: "mid-stream" }, { text: "never" }]]);
    const harness = new RuntimeHarness({ model });
    const session = await harness.createSession({ process_id: "A" });
    const turn = await session.prompt({ query: "hi" });
    await model.reached("mid-stream");
    await harness.waitForLive((mutation) => mutation.variant === "delta");
    await harness.kill("A");
    const finished = turnFinish(harness, turn.id);
    // B starts: its recovery loop's first pass (a server's startup recovery) takes the Turn over.
    harness.runtime("B");
    expect(await finished).toMatchObject({ status: "failed", error: "Turn interrupted by server restart" });
    expect(harness.takenOverBy("B")).toEqual([session.id]);
    // "partial" was only live: the durable log never had it.
    const messages = await harness.messages(session.id);
    expect(messages.map((message) => message.type)).toEqual(["user", "error"]);
    expect(messages[1]).toMatchObject({ code: "turn_interrupted", recoverable: true, scope: "turn" });
    expect(harness.mutations(session.id).map((mutation) => `${mutation.variant}:${mutation.type}`)).toEqual([
      "turn:start",
      "message:user",
      "message:error",
      "turn:finish",
    ]);
    expect(model.calls).toHaveLength(1);
  });

  it("a Step whose model stream was cut after a stream checkpoint keeps what the checkpoint committed: failed message, turn_interrupted error, failed Turn", async () => {
    const clock = createTestClock();
    const model = createScriptedModel([
      [
        { text: "partial", chunks: ["par", "tial"] },
        { block: "mid-stream" },
        { text: "more" },
        { block: "cut-here" },
        { text: "never" },
      ],
    ]);
    const harness = new RuntimeHarness({ model, clock, stream_checkpoint_ms: 1_000 });
    const session = await harness.createSession({ process_id: "A" });
    // The stream runs past PARLEY_STREAM_CHECKPOINT_MS without a checkpoint right as "tial" is
    // published (moved in the publish itself, so the part it is checked after is known).
    harness.bus.subscribe({
      onLiveMutation: (mutation) => {
        if (mutation.variant === "delta" && mutation.delta === "tial") clock.advance(1_000);
      },
    });
    const turn = await session.prompt({ query: "hi" });
    await harness.waitFor((mutation) => mutation.variant === "message" && mutation.type === "assistant");
    model.release("mid-stream");
    await model.reached("cut-here");
    await harness.kill("A");
    const finished = turnFinish(harness, turn.id);
    harness.runtime("B");
    expect(await finished).toMatchObject({ status: "failed", error: "Turn interrupted by server restart" });
    const messages = await harness.messages(session.id);
    expect(messages.map((message) => message.type)).toEqual(["user", "assistant", "error"]);
    expect(messages[1]).toMatchObject({ status: "failed", model_stream: "finished" });
    // What the checkpoint committed: the text so far ("partial", its end and "more" came later, live
    // only); the close of the interrupted message marks it done.
    const texts =
      messages[1]?.type === "assistant" ? messages[1].parts.filter((part) => part.type === "text") : [];
    expect(texts.map((part) => [part.text, part.state])).toEqual([["partial", "done"]]);
    expect(model.calls).toHaveLength(1);
  });

  it("a former owner whose lease was taken over never writes again and never runs the side effect", async () => {
    const { harness, session, turn, interaction_ids, effects } = await waitingInA();
    harness.leases.loseLease(session.id);
    await untilHostless(harness, "A");
    const b = harness.runtime("B");
    // A waiting Turn needs no driver: B takes the lease only with the answer.
    expect(await b.recover()).toEqual({ resumed_session_ids: [] });
    const resumed = await b.openSession(session.id);
    const finished = turnFinish(harness, turn.id);
    await resumed?.respond(approve(interaction_ids[0] ?? ""));
    await finished;
    expect(effects).toEqual(["file-0"]);
  });

  it("status and interactions of a session are readable from any process while it waits", async () => {
    const { harness, session, turn, interaction_ids } = await waitingInA();
    const remote = await harness.runtime("B").openSession(session.id);
    expect(await remote?.status()).toMatchObject({ state: "running", active_turn_id: turn.id });
    expect((await remote?.interactions())?.map((request) => request.interaction_id)).toEqual(interaction_ids);
    expect(await remote?.info()).toMatchObject({ pending_interactions: 1, state: "running" });
  });

  it("a respond and a prompt racing into a process after the owner died: one resumed Turn takes both", async () => {
    const approval = createApprovalTool();
    const model = createScriptedModel([
      [{ tool_call: { id: "call_1", name: "delete_file", input: { path: "a" } } }],
      [{ text: "after steer" }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { delete_file: approval.tool } });
    const session = await harness.createSession({ process_id: "A" });
    const turn = await session.prompt({ query: "delete" });
    const interaction_id = await harness.pendingInteraction("call_1");
    await harness.kill("A");
    const b = await harness.runtime("B").openSession(session.id);
    const finished = turnFinish(harness, turn.id);
    const [result, steer] = await Promise.all([
      b?.respond(approve(interaction_id)),
      b?.prompt({ query: "and then?" }),
    ]);
    expect(result).toMatchObject({ status: "resolved" });
    expect(steer?.id).toBe(turn.id);
    expect(await finished).toMatchObject({ status: "completed", text: "after steer" });
    expect(approval.effects).toEqual(["a"]);
    const users = (await harness.messages(session.id)).filter((message) => message.type === "user");
    expect(users.map((message) => message.type === "user" && message.input_type)).toEqual([
      "prompt",
      "steer",
    ]);
  });

  it("a prompt in a process that does not run the session's waiting Turn is queued durably and joins it as a steer", async () => {
    const { harness, session, turn, interaction_ids } = await waitingInA();
    const remote = await harness.runtime("B").openSession(session.id);
    const steer = await remote?.prompt({ query: "steer from B" });
    expect(steer?.id).toBe(turn.id);
    await session.respond(approve(interaction_ids[0] ?? ""));
    expect(await turn.finished).toMatchObject({ success: true });
    const users = (await harness.messages(session.id)).filter((message) => message.type === "user");
    expect(users.map((message) => message.type === "user" && message.input_type)).toEqual([
      "prompt",
      "steer",
    ]);
    expect(await harness.store.listQueuedCommands(session.id)).toEqual([]);
  });
});
