import { describe, expect, it } from "vitest";
import type { SessionCommit } from "../../ports/session-store.js";
import {
  durableMutationId,
  isLiveMutation,
  type SessionMutation,
  sessionMutationSchema,
} from "../../schema/mutation.js";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import { createApprovalTool } from "./tools.js";

/**
 * One committed revision, in words: what it writes (message type and new revision, or the session),
 * the mutations it logs (`a+b`: two, in one commit; `-` for none), the states of the tool parts it
 * writes, and the Interaction rows and feed entries it carries.
 */
function describeCommit(commit: SessionCommit): string {
  const snapshot = commit.message?.snapshot;
  const target = snapshot ? `${snapshot.type}@${snapshot.revision}` : "session";
  const logged = [commit.preceding_mutation, commit.mutation].flatMap((mutation) => {
    if (!mutation) return [];
    switch (mutation.variant) {
      case "turn":
      case "session":
        return [`${mutation.variant}:${mutation.type}`];
      case "part":
        return [`part:${mutation.part.type}`];
      default:
        return [`${mutation.variant}:${mutation.type}`];
    }
  });
  const published = logged.length === 0 ? "-" : logged.join("+");
  const tools =
    snapshot?.type === "assistant"
      ? snapshot.parts.flatMap((part) => (part.type === "tool" ? [part.state] : []))
      : [];
  const extras = [
    ...(snapshot?.type === "assistant" ? [`stream=${snapshot.model_stream}`] : []),
    ...(tools.length > 0 ? [`tool=${tools.join(",")}`] : []),
    ...(commit.interactions?.length
      ? [`interactions=${commit.interactions.map((row) => row.interaction.status).join(",")}`]
      : []),
    ...(commit.interaction_events?.length
      ? [`feed=${commit.interaction_events.map((event) => event.kind).join(",")}`]
      : []),
    ...(commit.settle_commands?.length ? ["settles"] : []),
    ...(commit.starts_turn ? ["starts-turn"] : []),
    ...(commit.claim ? ["claims"] : []),
    ...(commit.ends_turn ? ["ends-turn"] : []),
  ];
  return [target, published, ...extras].join(" ");
}

/**
 * One live mutation, in words: `variant:type` (a tool part with its state), the revision it builds on
 * and the durable event it follows.
 */
function describeLive(mutation: SessionMutation): string {
  const what =
    mutation.variant === "part" && mutation.part.type === "tool"
      ? `part:tool=${mutation.part.state}`
      : `${mutation.variant}:${mutation.type}`;
  const revision = "revision" in mutation ? mutation.revision : "-";
  return `${what} @${revision} after=${mutation.event_id}`;
}

describe("the revisions of one approval cycle", () => {
  it("prompt → ask → respond → resumed → finish commits exactly these revisions, in this order (DESIGN §10.6)", async () => {
    const approval = createApprovalTool();
    // The bench's cycle: a Step that calls the tool (input in one delta), then a Step of text.
    const model = createScriptedModel([
      [{ tool_call: { id: "call_1", name: "delete_file", input: { path: "a" } } }],
      [{ text: "done" }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { delete_file: approval.tool } });
    const commits: string[] = [];
    const commit = harness.store.commit.bind(harness.store);
    harness.store.commit = async (change: SessionCommit) => {
      const result = await commit(change);
      commits.push(describeCommit(change));
      return result;
    };
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "delete a" });
    const interaction_id = await harness.pendingInteraction("call_1");
    await session.respond({
      interaction_id,
      response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
    });
    expect(await turn.finished).toMatchObject({ success: true, text: "done" });
    expect(approval.effects).toEqual(["a"]);

    expect(commits).toEqual([
      // Checkpoint 1: the prompt, its Turn's start and the claim of the Turn in the commit that
      // acknowledges the prompt; two mutations (consecutive ids).
      "user@1 turn:start+message:user starts-turn claims",
      // Checkpoint 2: the tool asks. The message was live until now: it is inserted with everything
      // it holds (step-start, the tool's input, the end of the model stream) and its tool waiting,
      // the Interaction's row and feed entry in the same commit, published whole.
      "assistant@1 message:assistant stream=finished tool=waiting-user interactions=pending feed=created",
      // Checkpoint 3: the answer with the tool's `running` and its hand-over (`resumed_at`, which
      // lets the tool's code go on): the Turn runs in this process and its tool waits here, so the
      // answer's one commit, fenced by the Turn's epoch, carries both.
      "assistant@2 part:tool stream=finished tool=running interactions=resolved feed=resolved",
      // Checkpoint 5: the tool's result.
      "assistant@3 part:tool stream=finished tool=completed",
      // Checkpoint 7: Step 2 streamed live; the close carries its text, with the Turn's finish.
      "assistant@4 message:assistant+turn:finish stream=finished tool=completed ends-turn",
    ]);
    // Everything else was live: published at once, never committed, each following the last durable
    // event (1: start, 2: prompt, 3: Interaction, 4: answer, 5: result) and building on the
    // message's committed revision (0 before its first checkpoint).
    expect(harness.liveMutations(session.id).map(describeLive)).toEqual([
      "message:assistant @0 after=2",
      "part:tool=input-streaming @0 after=2",
      "part:tool=input-streaming @0 after=2",
      "part:tool=ready @0 after=2",
      "part:step-start @3 after=5",
      "part:text @3 after=5",
      "delta:text @3 after=5",
      "part:text @3 after=5",
    ]);
    expect(harness.liveMutations(session.id).every(isLiveMutation)).toBe(true);
    // Each is a valid mutation of the wire contract (the live message's `revision: 0` included).
    expect(
      harness
        .liveMutations(session.id)
        .filter((mutation) => !sessionMutationSchema.safeParse(mutation).success),
    ).toEqual([]);
    expect(harness.mutations(session.id).some(isLiveMutation)).toBe(false);
    // A durable mutation's id is derived from its event id (the log does not store it); each live
    // one has an id of its own, which no durable mutation has.
    const durable = harness.mutations(session.id);
    expect(durable.map((mutation) => mutation.mutation_id)).toEqual(
      durable.map((mutation) => durableMutationId(session.id, mutation.event_id)),
    );
    const liveIds = harness.liveMutations(session.id).map((mutation) => mutation.mutation_id);
    expect(new Set([...liveIds, ...durable.map((mutation) => mutation.mutation_id)]).size).toBe(
      liveIds.length + durable.length,
    );
    const [assistant] = await harness.assistants(session.id);
    expect(assistant?.parts.map((part) => part.type)).toEqual(["step-start", "tool", "step-start", "text"]);
    // Durable states of the tool: `input-streaming` and `ready` were live only.
    expect(harness.toolStates(session.id, "call_1")).toEqual(["waiting-user", "running", "completed"]);
  });
});
