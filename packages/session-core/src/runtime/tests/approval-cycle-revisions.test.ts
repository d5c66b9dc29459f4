import { describe, expect, it } from "vitest";
import type { SessionCommit } from "../../ports/session-store.js";
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

describe("the revisions of one approval cycle", () => {
  it("prompt → ask → respond → resumed → finish commits exactly these revisions, in this order", async () => {
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
      // The prompt, its Turn's start and the claim of the Turn: one commit (the prompt's
      // acknowledgement), two mutations (consecutive event ids).
      "user@1 turn:start+message:user starts-turn claims",
      // Step 1: the message opens with its step-start; the tool's start and streamed input are one
      // revision, its settled input and the end of the model stream the next.
      "assistant@1 message:assistant stream=streaming",
      "assistant@2 part:tool stream=streaming tool=input-streaming",
      "assistant@3 part:tool stream=finished tool=ready",
      // The tool asks: the part waits with its pending Interaction (row and feed in the same commit).
      "assistant@4 part:tool stream=finished tool=waiting-user interactions=pending feed=created",
      // respond: the answer and the tool's `running` together; then the unpublished hand-over that
      // lets the tool's code go on (recovery re-runs the tool until it is committed).
      "assistant@5 part:tool stream=finished tool=running interactions=resolved feed=resolved",
      "assistant@6 - stream=finished tool=running interactions=resolved",
      "assistant@7 part:tool stream=finished tool=completed",
      // Step 2: its step-start rides along with the text part's start (clients do not show
      // step-starts); then one revision per coalesced run of deltas and the part's end, as G70 pins.
      "assistant@8 part:text stream=streaming tool=completed",
      "assistant@9 delta:text stream=streaming tool=completed",
      "assistant@10 part:text stream=streaming tool=completed",
      // The close and the Turn's finish: one commit, the message's mutation then the Turn's.
      "assistant@11 message:assistant+turn:finish stream=finished tool=completed ends-turn",
    ]);
    const [assistant] = await harness.assistants(session.id);
    expect(assistant?.parts.map((part) => part.type)).toEqual(["step-start", "tool", "step-start", "text"]);
    expect(harness.toolStates(session.id, "call_1")).toEqual([
      "input-streaming",
      "ready",
      "waiting-user",
      "running",
      "completed",
    ]);
  });
});
