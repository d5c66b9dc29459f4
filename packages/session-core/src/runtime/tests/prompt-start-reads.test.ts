import { describe, expect, it } from "vitest";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";

/** Counts the store reads a prompt's start makes before its first model request. */
function countReads(harness: RuntimeHarness) {
  const reads = { last_sequence: 0, queue: 0, messages: 0 };
  const listMessages = harness.store.listMessages.bind(harness.store);
  harness.store.listMessages = async (session_id, query) => {
    reads.messages += 1;
    return listMessages(session_id, query);
  };
  const lastSequence = harness.store.lastSequence.bind(harness.store);
  harness.store.lastSequence = async (session_id) => {
    reads.last_sequence += 1;
    return lastSequence(session_id);
  };
  const listQueued = harness.store.listQueuedCommands.bind(harness.store);
  harness.store.listQueuedCommands = async (session_id) => {
    reads.queue += 1;
    return listQueued(session_id);
  };
  return reads;
}

describe("a prompt that starts a Turn on an idle session", () => {
  it("reads the session once, with the lock held, and neither the queue nor its messages again for its first model request", async () => {
    const model = createScriptedModel([[{ text: "one" }], [{ block: "first-request" }, { text: "two" }]]);
    const harness = new RuntimeHarness({ model });
    const created = await harness.createSession({ process_id: "A" });
    expect(await (await created.prompt({ query: "first" })).finished).toMatchObject({ text: "one" });
    // A gives the session up (its lease, its host) once the Turn ended.
    while (harness.runtime("A").stats().hosts > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    // Another process, which has never written to the session, starts the second Turn.
    const session = await harness.runtime("B").openSession(created.id);
    const reads = countReads(harness);
    const turn = await session?.prompt({ query: "second" });
    await model.reached("first-request");
    // The start commit is refused while a command is queued: the first checkpoint knows the queue
    // is empty. The session's messages were read once: they gave the user message its sequence, and
    // the first request sends them with it.
    expect(reads).toEqual({ last_sequence: 0, queue: 0, messages: 1 });
    expect(model.calls[1]?.prompt).toEqual(
      model.calls[0] && [
        ...model.calls[0].prompt,
        { role: "assistant", content: [{ type: "text", text: "one" }] },
        { role: "user", content: [{ type: "text", text: "second" }] },
      ],
    );
    model.release("first-request");
    expect(await turn?.finished).toMatchObject({ success: true, text: "two" });
    expect((await harness.messages(created.id)).map((message) => message.sequence)).toEqual([1, 2, 3, 4]);
    await harness.shutdown();
  });

  it("a prompt queued right after the start joins the Turn as a steer at the next checkpoint", async () => {
    const model = createScriptedModel([[{ block: "first-request" }, { text: "one" }], [{ text: "two" }]]);
    const harness = new RuntimeHarness({ model });
    const session = await harness.createSession({ process_id: "A" });
    const turn = await session.prompt({ query: "first" });
    const remote = await harness.runtime("B").openSession(session.id);
    const steer = await remote?.prompt({ query: "steer" });
    expect(steer?.id).toBe(turn.id);
    await model.reached("first-request");
    model.release("first-request");
    expect(await turn.finished).toMatchObject({ success: true, text: "two" });
    const messages = await harness.messages(session.id);
    expect(
      messages.map((message) => (message.type === "user" ? `user:${message.input_type}` : message.type)),
    ).toEqual(["user:prompt", "assistant", "user:steer", "assistant"]);
    await harness.shutdown();
  });
});
