import { describe, expect, it } from "vitest";
import { ParleyError } from "../../errors.js";
import { isLiveMutation, type SessionMutation } from "../../schema/mutation.js";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import { createTestClock } from "../../testing/test-clock.js";
import { createApprovalTool } from "./tools.js";

function label(mutation: SessionMutation): string {
  switch (mutation.variant) {
    case "message":
    case "part":
    case "delta":
      return `${mutation.variant}:${mutation.type}`;
    case "turn":
      return `turn:${mutation.type}`;
    case "session":
      return `session:${mutation.type}`;
  }
}

describe("queue, steer, ordering and sync", () => {
  it("G69: text, a tool with an approval, then text keep their order; the tool's states are published on one part", async () => {
    const approval = createApprovalTool();
    const model = createScriptedModel([
      [
        { text: "before" },
        { tool_call: { id: "call_1", name: "delete_file", input: { path: "a" } } },
        { text: "after" },
      ],
      [{ text: "done" }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { delete_file: approval.tool } });
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "go" });
    const interaction_id = await harness.pendingInteraction("call_1");
    await session.respond({
      interaction_id,
      response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
    });
    await turn.finished;
    const [assistant] = await harness.assistants(session.id);
    const firstStep = assistant?.parts.slice(0, 4);
    expect(firstStep?.map((part) => part.type)).toEqual(["step-start", "text", "tool", "text"]);
    expect(firstStep?.map((part) => part.sequence)).toEqual([1, 2, 3, 4]);
    expect(assistant?.parts.find((part) => part.type === "tool")).toMatchObject({
      state: "completed",
      output: { deleted: "a" },
    });
    // Durable from the Interaction's creation on; `input-streaming` and `ready` were live.
    expect(harness.toolStates(session.id, "call_1")).toEqual(["waiting-user", "running", "completed"]);
    expect(harness.liveToolStates(session.id, "call_1")).toEqual(["input-streaming", "ready"]);
    const partIds = new Set(
      [...harness.liveMutations(session.id), ...harness.mutations(session.id)].flatMap((mutation) =>
        mutation.variant === "part" && mutation.part.type === "tool" ? [mutation.part_id] : [],
      ),
    );
    expect([...partIds]).toEqual(["tool:call_1"]);
  });

  it("G70: streamed text is live, delta by delta, and committed once, by the close (DESIGN §10.6)", async () => {
    const model = createScriptedModel([[{ text: "hello world", chunks: ["hello ", "world"] }]]);
    const harness = new RuntimeHarness({ model });
    const session = await harness.createSession();
    await (await session.prompt({ query: "hi" })).finished;
    expect(harness.mutations(session.id).map(label)).toEqual([
      "turn:start",
      "message:user",
      "message:assistant",
      "turn:finish",
    ]);
    // Each live mutation follows the prompt's event (2) and builds on no committed revision yet.
    expect(harness.liveMutations(session.id).map((mutation) => [label(mutation), mutation.event_id])).toEqual(
      [
        ["message:assistant", 2],
        ["part:text", 2],
        ["delta:text", 2],
        ["delta:text", 2],
        ["part:text", 2],
      ],
    );
    expect(
      harness.liveMutations(session.id).map((mutation) => "revision" in mutation && mutation.revision),
    ).toEqual([0, 0, 0, 0, 0]);
    expect(
      harness
        .liveMutations(session.id)
        .flatMap((mutation) => (mutation.variant === "delta" ? [mutation.delta] : [])),
    ).toEqual(["hello ", "world"]);
    const [assistant] = await harness.assistants(session.id);
    expect(assistant).toMatchObject({ revision: 1, status: "completed" });
    expect(assistant?.parts.find((part) => part.type === "text")).toMatchObject({
      text: "hello world",
      state: "done",
    });
    expect(JSON.stringify(await harness.messages(session.id))).not.toContain('"variant"');
  });

  it("G70: a stream that runs PARLEY_STREAM_CHECKPOINT_MS without a checkpoint gets one revision with its text so far", async () => {
    const clock = createTestClock();
    const model = createScriptedModel([[{ text: "hello world", chunks: ["hello ", "world"] }]]);
    const harness = new RuntimeHarness({ model, clock, stream_checkpoint_ms: 1_000 });
    // The stream has run 1 s when "hello " is published (moved in the publish itself, so the part
    // the checkpoint follows is known).
    harness.bus.subscribe({
      onLiveMutation: (mutation) => {
        if (mutation.variant === "delta" && mutation.delta === "hello ") clock.advance(1_000);
      },
    });
    const session = await harness.createSession();
    await (await session.prompt({ query: "hi" })).finished;
    const durable = harness.mutations(session.id);
    expect(durable.map(label)).toEqual([
      "turn:start",
      "message:user",
      "message:assistant",
      "message:assistant",
      "turn:finish",
    ]);
    // The stream checkpoint: the message's first revision, with the text so far, still streaming.
    const checkpoint = durable[2];
    expect(checkpoint?.variant === "message" && checkpoint.message).toMatchObject({
      revision: 1,
      status: "streaming",
      parts: [{ type: "step-start" }, { type: "text", text: "hello ", state: "streaming" }],
    });
    // After it, live mutations follow its event (3) and build on its revision (1).
    expect(
      harness
        .liveMutations(session.id)
        .map((mutation) => [label(mutation), mutation.event_id, "revision" in mutation && mutation.revision]),
    ).toEqual([
      ["message:assistant", 2, 0],
      ["part:text", 2, 0],
      ["delta:text", 2, 0],
      ["delta:text", 3, 1],
      ["part:text", 3, 1],
    ]);
    const [assistant] = await harness.assistants(session.id);
    expect(assistant).toMatchObject({ revision: 2, status: "completed" });
    expect(assistant?.parts.find((part) => part.type === "text")).toMatchObject({ text: "hello world" });
  });

  it("G70: a stream that stalls past PARLEY_STREAM_CHECKPOINT_MS gets its checkpoint while it stalls", async () => {
    const clock = createTestClock();
    const model = createScriptedModel([[{ text: "so far" }, { block: "stall" }]]);
    // Short, so that the stall timer looks often; due only once the test clock moved.
    const harness = new RuntimeHarness({ model, clock, stream_checkpoint_ms: 20 });
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "hi" });
    await model.reached("stall");
    await harness.waitForLive(
      (mutation) =>
        mutation.variant === "part" && mutation.part.type === "text" && mutation.part.state === "done",
    );
    clock.advance(20);
    const checkpoint = await harness.waitFor(
      (mutation) => mutation.variant === "message" && mutation.type === "assistant",
    );
    expect(checkpoint.variant === "message" && checkpoint.message).toMatchObject({
      revision: 1,
      status: "streaming",
      parts: [{ type: "step-start" }, { type: "text", text: "so far", state: "done" }],
    });
    model.release("stall");
    await turn.finished;
    expect(harness.mutations(session.id).map(label)).toEqual([
      "turn:start",
      "message:user",
      "message:assistant",
      "message:assistant",
      "turn:finish",
    ]);
  });

  it("G72: a client that buffers live mutations and loads messages() shows exactly one pending card", async () => {
    const approval = createApprovalTool();
    const model = createScriptedModel([
      [{ tool_call: { id: "call_1", name: "delete_file", input: { path: "a" } } }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { delete_file: approval.tool } });
    const session = await harness.createSession();
    const buffer: SessionMutation[] = [];
    session.subscribe((mutation) => {
      buffer.push(mutation);
    });
    await session.prompt({ query: "go" });
    await harness.pendingInteraction("call_1");
    const page = await session.messages();
    const cards = new Map<string, { status: string; revision: number }>();
    for (const message of page.items) {
      if (message.type !== "assistant") continue;
      for (const part of message.parts) {
        if (part.type !== "tool") continue;
        for (const item of part.interactions ?? [])
          cards.set(item.interaction_id, { status: item.status, revision: message.revision });
      }
    }
    for (const mutation of buffer) {
      if (mutation.variant !== "part" || mutation.part.type !== "tool") continue;
      for (const item of mutation.part.interactions ?? []) {
        const known = cards.get(item.interaction_id);
        if (!known || known.revision < mutation.revision) {
          cards.set(item.interaction_id, { status: item.status, revision: mutation.revision });
        }
      }
    }
    expect([...cards.values()].filter((card) => card.status === "pending")).toHaveLength(1);
  });

  it("subscribe with after_event_id replays every committed mutation once, in order, then continues live (live mutations follow the last durable one)", async () => {
    const model = createScriptedModel([[{ text: "one" }, { block: "mid" }, { text: "two" }]]);
    const harness = new RuntimeHarness({ model });
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "hi" });
    await model.reached("mid");
    // "one" is streamed whole (its end published) before the subscription starts.
    await harness.waitForLive(
      (mutation) =>
        mutation.variant === "part" && mutation.part.type === "text" && mutation.part.state === "done",
    );
    const received: number[] = [];
    const live: string[] = [];
    let caughtUp = () => {};
    const replayed = new Promise<void>((resolve) => {
      caughtUp = resolve;
    });
    const stored = await harness.store.listEvents(session.id, 0, 1000);
    const eventIds = new Map(stored.map((event) => [event.mutation.mutation_id, event.event_id]));
    session.subscribe(
      (mutation) => {
        if (isLiveMutation(mutation)) {
          live.push(`${label(mutation)}@${mutation.event_id}`);
          return;
        }
        received.push(mutation.event_id);
        eventIds.set(mutation.mutation_id, mutation.event_id);
        if (mutation.event_id === 2) caughtUp();
      },
      { after_event_id: 1 },
    );
    // Caught up (the replay delivered the prompt's event) before "two" streams: a live mutation is
    // never handed on during a replay.
    await replayed;
    model.release("mid");
    await turn.finished;
    await new Promise((resolve) => setImmediate(resolve));
    const all = (await harness.store.listEvents(session.id, 0, 1000)).map((event) => event.event_id);
    expect(received).toEqual(all.filter((id) => id > 1));
    expect(all).toEqual(all.map((_, index) => index + 1));
    // "one" streamed before the subscription (live, never replayed); "two" after it, each of its live
    // mutations right after the durable event it follows (the prompt, 2: nothing was committed since).
    expect(live).toEqual(["part:text@2", "delta:text@2", "part:text@2"]);
  });

  it("a throwing subscriber affects neither persistence nor other subscribers", async () => {
    const model = createScriptedModel([[{ text: "ok" }]]);
    const harness = new RuntimeHarness({ model });
    const session = await harness.createSession();
    const seen: string[] = [];
    session.subscribe(() => {
      throw new Error("bad subscriber");
    });
    session.subscribe(async () => {
      throw new Error("bad async subscriber");
    });
    session.subscribe((mutation) => {
      seen.push(mutation.variant);
    });
    expect(await (await session.prompt({ query: "hi" })).finished).toMatchObject({ success: true });
    expect(seen[0]).toBe("turn");
    expect(seen.at(-1)).toBe("turn");
  });

  it("G74: prompts during a running Turn join it as steers and open a new assistant message of the same Turn", async () => {
    const model = createScriptedModel([[{ block: "s1" }, { text: "one" }], [{ text: "two" }]]);
    const harness = new RuntimeHarness({ model });
    const session = await harness.createSession();
    const first = await session.prompt({ query: "first" });
    await model.reached("s1");
    const second = session.prompt({ query: "second" });
    const third = session.prompt({ query: "third" });
    model.release("s1");
    expect([(await second).id, (await third).id]).toEqual([first.id, first.id]);
    expect(await first.finished).toMatchObject({ success: true, text: "two" });
    const messages = await harness.messages(session.id);
    expect(
      messages.map((message) => (message.type === "user" ? `user:${message.input_type}` : message.type)),
    ).toEqual(["user:prompt", "assistant", "user:steer", "user:steer", "assistant"]);
    expect(messages.filter((message) => message.type === "assistant")).toMatchObject([
      { turn_id: first.id, segment_index: 1, status: "completed" },
      { turn_id: first.id, segment_index: 2, status: "completed" },
    ]);
  });

  it("G75: a blank or over-long prompt is invalid_input and nothing is persisted", async () => {
    const harness = new RuntimeHarness({ model: createScriptedModel([]) });
    const session = await harness.createSession();
    for (const query of ["  ", "", "x".repeat(32_001)]) {
      const error = await session.prompt({ query }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ParleyError);
      expect((error as ParleyError).code).toBe("invalid_input");
    }
    await expect(session.prompt({ query: "  " })).rejects.toThrow(
      "session.prompt requires a non-empty query",
    );
    expect(await harness.messages(session.id)).toEqual([]);
    expect(harness.events).toEqual([]);
  });

  it("unknown sessions are not found; the runtime refuses unknown agents", async () => {
    const harness = new RuntimeHarness({ model: createScriptedModel([]) });
    expect(await harness.runtime().openSession("session_missing")).toBeNull();
    await expect(harness.runtime().createSession({ owner_id: "u", agent_id: "nope" })).rejects.toMatchObject({
      code: "invalid_input",
    });
  });

  it("a prompt retried with the same request_id gets the same Turn, not a second one", async () => {
    const model = createScriptedModel([[{ text: "once" }]]);
    const harness = new RuntimeHarness({ model });
    const session = await harness.createSession();
    const [first, retry] = await Promise.all([
      session.prompt({ query: "hi", request_id: "req-1" }),
      session.prompt({ query: "hi", request_id: "req-1" }),
    ]);
    expect(retry.id).toBe(first.id);
    await first.finished;
    expect(model.calls).toHaveLength(1);
    expect((await harness.messages(session.id)).filter((message) => message.type === "user")).toHaveLength(1);
  });
});
