import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../../ports/session-store.js";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import { createApprovalTool } from "./tools.js";

/**
 * Per message: the published (durable) revisions, in publish order. They are 1, 2, 3 … with no
 * repeat (one mutation per revision) and a gap only for an unpublished hand-over revision
 * (`resumed_at`; one at most per handed-over answer: none when the answer's own commit carried it).
 * Live mutations take no revision of their own (DESIGN §10.6).
 */
function revisionsByMessage(events: SessionEvent[]): Map<string, number[]> {
  const revisions = new Map<string, number[]>();
  for (const { mutation } of events) {
    if (mutation.variant !== "message" && mutation.variant !== "part" && mutation.variant !== "delta")
      continue;
    const list = revisions.get(mutation.message_id) ?? [];
    list.push(mutation.revision);
    revisions.set(mutation.message_id, list);
  }
  return revisions;
}

/** Checks the invariants; resolves how many revisions of the session's messages were unpublished. */
async function expectInvariants(harness: RuntimeHarness, session_id: string): Promise<number> {
  let unpublished = 0;
  const published = harness.events.filter((event) => event.session_id === session_id);
  const ids = published.map((event) => event.event_id);
  expect(ids).toEqual(ids.map((_, index) => index + 1));
  const stored = await harness.store.listEvents(session_id, 0, 10_000);
  expect(stored.map((event) => event.mutation.mutation_id)).toEqual(
    published.map((event) => event.mutation.mutation_id),
  );
  for (const [message_id, revisions] of revisionsByMessage(published)) {
    const message = await harness.store.getMessage(session_id, message_id);
    // The only unpublished revisions are hand-overs of resolved answers (`resumed_at`), one each
    // at most: an answer committed where its tool waits carries its hand-over.
    const handedOver =
      message?.type === "assistant"
        ? message.parts.flatMap((part) =>
            part.type === "tool"
              ? (part.interactions ?? []).filter((item) => item.resumed_at !== undefined)
              : [],
          ).length
        : 0;
    const all = Array.from({ length: message?.revision ?? 0 }, (_, index) => index + 1);
    expect(revisions, message_id).toEqual([...new Set(revisions)].sort((a, b) => a - b));
    const gaps = all.filter((revision) => !revisions.includes(revision)).length;
    expect(gaps, message_id).toBeLessThanOrEqual(handedOver);
    expect(message?.revision, message_id).toBe(revisions.length + gaps);
    unpublished += gaps;
  }
  return unpublished;
}

describe("revision and event-id invariants under interleaving", () => {
  for (const chunks of [1, 7, 23]) {
    it(`G21: stream deltas + an Interaction created, answered from another process, then stop (chunks=${chunks})`, async () => {
      const text = "x".repeat(chunks * 3);
      const approval = createApprovalTool();
      const model = createScriptedModel(
        [
          [
            { tool_call: { id: "call_1", name: "delete_file", input: { path: "a" } } },
            { text, chunks: text.match(/.{1,3}/g) ?? [] },
            { block: "g1" },
            { text, chunks: text.match(/.{1,3}/g) ?? [] },
            { block: "g2" },
            { text: "never" },
          ],
        ],
        {},
      );
      const harness = new RuntimeHarness({
        model,
        tools: { delete_file: approval.tool },
        stream_checkpoint_ms: 1,
      });
      const session = await harness.createSession({ process_id: "A" });
      const remote = await harness.runtime("B").openSession(session.id);
      const turn = await session.prompt({ query: "go" });
      await model.reached("g1");
      const [handle] = await Promise.all([
        session.interactions.request({
          type: "question",
          turn_id: turn.id,
          tool_call_id: "call_1",
          payload: { questions: [] },
        }),
        Promise.resolve().then(() => model.release("g1")),
      ]);
      const [result] = await Promise.all([
        remote?.respond({
          interaction_id: handle.interaction_id,
          response: { type: "question", outcome: "resolved", payload: { answers: [] } },
        }),
        model.reached("g2"),
      ]);
      expect(result).toMatchObject({ status: "resolved" });
      expect(await handle.result).toMatchObject({ status: "resolved" });
      const [stopped] = await Promise.all([
        session.stop(),
        Promise.resolve().then(() => model.release("g2")),
      ]);
      expect(stopped).toMatchObject({ stopped: true, turn_id: turn.id });
      expect(await turn.finished).toMatchObject({ success: false, error: "Turn stopped" });
      await expectInvariants(harness, session.id);
      // Deltas are live (DESIGN §10.6); stream checkpoints (every part here: 1 ms) and the close
      // commit the text, whatever other process's commit they meet.
      const deltas = harness
        .liveMutations(session.id)
        .flatMap((mutation) => (mutation.variant === "delta" ? [mutation.delta] : []));
      expect(deltas.join("").startsWith(text)).toBe(true);
      expect(harness.mutations(session.id).some((mutation) => mutation.variant === "delta")).toBe(false);
      const [assistant] = await harness.assistants(session.id);
      expect(assistant?.status).toBe("stopped");
      const stored = assistant?.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
      expect(stored?.startsWith(text)).toBe(true);
      expect(assistant?.parts.find((part) => part.type === "tool")).toMatchObject({
        state: "failed",
        interactions: [{ status: "resolved" }],
      });
    });
  }

  it("revisions stay gap-free across a full approval Turn with two Steps, a steer and a config change (the hand-over rides in its answer's commit)", async () => {
    const approval = createApprovalTool();
    const model = createScriptedModel([
      [
        { text: "looking", chunks: ["lo", "ok", "ing"] },
        { tool_call: { id: "call_1", name: "delete_file", input: { path: "a" } } },
      ],
      [{ block: "s2" }, { text: "done" }],
      [{ reasoning: "hmm" }, { text: "steered" }],
    ]);
    const harness = new RuntimeHarness({
      model,
      tools: { delete_file: approval.tool },
      stream_checkpoint_ms: 1,
    });
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "go" });
    const interaction_id = await harness.pendingInteraction("call_1");
    await session.respond({
      interaction_id,
      response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
    });
    await model.reached("s2");
    await session.set({ security: { approval_mode: "always-allow" } });
    const steer = session.prompt({ query: "also" });
    model.release("s2");
    await steer;
    expect(await turn.finished).toMatchObject({ success: true, text: "steered" });
    expect((await harness.store.getInteraction(interaction_id))?.interaction).toMatchObject({
      status: "resolved",
      resumed_at: expect.any(Number),
    });
    expect(approval.effects).toEqual(["a"]);
    expect(await expectInvariants(harness, session.id)).toBe(0);
  });
});
