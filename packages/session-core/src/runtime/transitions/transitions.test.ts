import { describe, expect, it } from "vitest";
import type { Interaction } from "../../schema/interaction.js";
import type { AssistantMessage } from "../../schema/messages.js";
import { checkpointSpec, replayLive } from "../session/live-copies.js";
import {
  addStreamingPart,
  appendStreamedText,
  closeAssistantMessage,
  createAssistantMessage,
  finishModelStream,
  finishStreamingPart,
  lastStepText,
  startStep,
} from "./assistant-transitions.js";
import {
  cancelInteraction,
  interactionResultOf,
  markInteractionResumed,
  pendingInteractionsOf,
  requestInteraction,
  respondToInteraction,
} from "./interaction-transitions.js";
import {
  appendToolInput,
  completeTool,
  failTool,
  settleToolCall,
  startToolInput,
} from "./tool-part-transitions.js";
import type { AssistantTransition } from "./transition.js";

const NOW = 1_000;

function open(): AssistantMessage {
  return createAssistantMessage({
    message_id: "assistant:s:1",
    session_id: "s",
    turn_id: "turn:s:1",
    sequence: 2,
    segment_index: 1,
    step_part_id: "step-start:1",
    now: NOW,
  });
}

function pending(id: string, type = "approval"): Interaction {
  return {
    interaction_id: id,
    interaction_type: type,
    status: "pending",
    request: {
      interaction_id: id,
      turn_id: "turn:s:1",
      type,
      source: { type: "tool", tool_call_id: "call_1" },
      payload: {},
      created_at: NOW,
    },
  };
}

function readyTool(): AssistantMessage {
  let message = startToolInput(open(), { tool_call_id: "call_1", tool_name: "delete_file" }).message;
  message = appendToolInput(message, "call_1", '{"path":').message;
  return settleToolCall(
    message,
    { tool_call_id: "call_1", tool_name: "delete_file", input_text: '{"path":"a"}' },
    { input: { path: "a" } },
  ).message;
}

function waiting(): AssistantMessage {
  return requestInteraction(readyTool(), {
    tool_call_id: "call_1",
    ordinal: 0,
    interaction: pending("interaction:1"),
  }).message;
}

describe("assistant transitions", () => {
  it("text streams as deltas of one part and closes done", () => {
    let message = addStreamingPart(open(), "text:1", "text").message;
    const delta = appendStreamedText(message, "text:1", "hel");
    expect(delta.mutation).toEqual({ variant: "delta", part_id: "text:1", type: "text", delta: "hel" });
    message = appendStreamedText(delta.message, "text:1", "lo").message;
    message = finishStreamingPart(message, "text:1")?.message ?? message;
    expect(message.parts[1]).toMatchObject({ text: "hello", state: "done", sequence: 2 });
    expect(finishStreamingPart(message, "text:1")).toBeNull();
    expect(lastStepText(message)).toBe("hello");
  });

  it("a new Step appends step-start and reopens the model stream", () => {
    const finished = finishModelStream(open())?.message;
    expect(finished?.model_stream).toBe("finished");
    const next = startStep(finished ?? open(), "step-start:2");
    expect(next.message.model_stream).toBe("streaming");
    expect(next.message.parts.map((part) => part.sequence)).toEqual([1, 2]);
    expect(lastStepText(next.message)).toBe("");
  });

  it("close finishes text, cancels pending Interactions and fails unfinished tools in one revision", () => {
    const message = addStreamingPart(waiting(), "text:9", "text").message;
    const closed = closeAssistantMessage(message, {
      status: "stopped",
      tool_error: "Turn stopped",
      cancel_reason: "turn_stopped",
      now: 5,
    });
    expect(closed.mutation).toEqual({ variant: "message" });
    expect(closed.interaction_changes).toEqual([{ tool_call_id: "call_1", ordinal: 0, kind: "cancelled" }]);
    expect(closed.message.parts.find((part) => part.type === "tool")).toMatchObject({
      state: "failed",
      error: "Turn stopped",
      interactions: [{ status: "cancelled", cancel_reason: "turn_stopped", resolved_at: 5 }],
    });
    expect(closed.message.parts.find((part) => part.type === "text")).toMatchObject({ state: "done" });
    expect(() => appendStreamedText(closed.message, "text:9", "x")).toThrow(
      "Assistant Message is already closed: assistant:s:1",
    );
  });
});

describe("tool part transitions", () => {
  it("input-streaming → ready keeps one part id; invalid input fails; outputs after failure are ignored", () => {
    const ready = readyTool();
    expect(ready.parts[1]).toMatchObject({
      part_id: "tool:call_1",
      state: "ready",
      input: { path: "a" },
      input_text: '{"path":"a"}',
    });
    const failed = settleToolCall(
      open(),
      { tool_call_id: "call_2", tool_name: "x", input_text: "{" },
      { error: "Unknown tool: x" },
    );
    expect(failed.message.parts[1]).toMatchObject({ state: "failed", error: "Unknown tool: x" });
    const denied = failTool(ready, "call_1", "Interaction denied")?.message ?? ready;
    expect(completeTool(denied, "call_1", { ok: true })).toBeNull();
    expect(failTool(denied, "call_1", "again")).toBeNull();
    expect(completeTool(ready, "call_1", { ok: true })?.message.parts[1]).toMatchObject({
      state: "completed",
      output: { ok: true },
    });
  });
});

describe("interaction transitions", () => {
  it("creation requires a ready tool and appends the pending entry in one part mutation", () => {
    expect(() =>
      requestInteraction(open(), { tool_call_id: "call_x", ordinal: 0, interaction: pending("i") }),
    ).toThrow("Streaming Tool Part not found: call_x");
    const streaming = startToolInput(open(), { tool_call_id: "call_1", tool_name: "t" }).message;
    expect(() =>
      requestInteraction(streaming, { tool_call_id: "call_1", ordinal: 0, interaction: pending("i") }),
    ).toThrow("Tool Interaction requires ready input: call_1 (input-streaming)");
    const created = requestInteraction(readyTool(), {
      tool_call_id: "call_1",
      ordinal: 0,
      interaction: pending("i"),
    });
    expect(created.mutation).toEqual({ variant: "part", part_id: "tool:call_1" });
    expect(created.interaction_changes).toEqual([{ tool_call_id: "call_1", ordinal: 0, kind: "created" }]);
    expect(pendingInteractionsOf(created.message).map((item) => item.interaction_id)).toEqual(["i"]);
  });

  it("respond resolves → running, denies → failed; a second respond is not pending", () => {
    const response = { type: "approval", outcome: "resolved" as const, payload: { decision: "approved" } };
    const resolved = respondToInteraction(
      waiting(),
      { interaction_id: "interaction:1", response, responded_by: "u" },
      7,
    );
    expect(resolved.message.parts[1]).toMatchObject({
      state: "running",
      interactions: [{ status: "resolved", response, resolved_at: 7, responded_by: "u" }],
    });
    expect(resolved.value).toEqual({ status: "resolved", interaction_id: "interaction:1", response });
    expect(() =>
      respondToInteraction(resolved.message, { interaction_id: "interaction:1", response }, 8),
    ).toThrow("Session Interaction is already resolved: interaction:1");
    const denied = respondToInteraction(
      waiting(),
      {
        interaction_id: "interaction:1",
        response: { type: "approval", outcome: "denied", payload: { decision: "denied", reason: "no" } },
      },
      7,
    );
    expect(denied.message.parts[1]).toMatchObject({ state: "failed", error: "Interaction denied" });
    expect(denied.value).toEqual({ status: "denied", interaction_id: "interaction:1", reason: "no" });
  });

  it("cancel fails the waiting tool; the result carries the reason; cancelling twice changes nothing", () => {
    const cancelled = cancelInteraction(
      waiting(),
      { interaction_id: "interaction:1", reason: "session_disposed" },
      9,
    );
    expect(cancelled?.message.parts[1]).toMatchObject({ state: "failed", error: "Interaction cancelled" });
    const interaction =
      cancelled?.message.parts[1]?.type === "tool" ? cancelled.message.parts[1].interactions?.[0] : undefined;
    expect(interaction && interactionResultOf(interaction)).toEqual({
      status: "cancelled",
      interaction_id: "interaction:1",
      reason: "session_disposed",
    });
    expect(
      cancelled &&
        cancelInteraction(cancelled.message, { interaction_id: "interaction:1", reason: "turn_stopped" }, 10),
    ).toBeNull();
  });
});

const start = (id: string) => (message: AssistantMessage) =>
  startToolInput(message, { tool_call_id: id, tool_name: "delete_file" });
const input = (id: string, delta: string) => (message: AssistantMessage) =>
  appendToolInput(message, id, delta);
const settle = (id: string) => (message: AssistantMessage) =>
  settleToolCall(
    message,
    { tool_call_id: id, tool_name: "delete_file", input_text: '{"path":"a"}' },
    { input: { path: "a" } },
  );

describe("checkpoint mutations and live replay (DESIGN §10.6)", () => {
  const applied = (
    message: AssistantMessage,
    ...steps: ((m: AssistantMessage) => AssistantTransition | null)[]
  ) => steps.reduce((current, step) => step(current)?.message ?? current, message);
  const same = (message: AssistantMessage): AssistantTransition => ({
    message,
    mutation: { variant: "message" },
  });

  it("a checkpoint that changed one part of a committed message publishes that part", () => {
    const committed = start("call_1")(open()).message;
    const next = applied(committed, input("call_1", '{"path":'), input("call_1", '"a"}'), settle("call_1"));
    expect(checkpointSpec(committed, next, same(next), true)).toEqual({
      variant: "part",
      part_id: "tool:call_1",
    });
  });

  it("a checkpoint that changed several parts, or the status, or created the message publishes it whole", () => {
    const committed = open();
    const several = applied(committed, settle("call_1"), start("call_2"));
    expect(checkpointSpec(committed, several, same(several), true)).toEqual({ variant: "message" });
    expect(checkpointSpec(undefined, committed, same(committed), false)).toEqual({ variant: "message" });
    const closed: AssistantMessage = { ...committed, status: "completed" };
    expect(checkpointSpec(committed, closed, same(closed), false)).toEqual({ variant: "message" });
    // Only the end of the model stream changed (no part): the whole message.
    const finished = finishModelStream(committed)?.message ?? committed;
    expect(checkpointSpec(committed, finished, same(finished), false)).toEqual({ variant: "message" });
  });

  it("an unpublished change publishes nothing unless live state rides along with it", () => {
    const committed = open();
    const unpublished: AssistantTransition = {
      message: committed,
      mutation: { variant: "message" },
      publish: false,
    };
    expect(checkpointSpec(committed, committed, unpublished, false)).toBeUndefined();
    const withText = addStreamingPart(committed, "text:1", "text").message;
    expect(checkpointSpec(committed, withText, { ...unpublished, message: withText }, true)).toEqual({
      variant: "part",
      part_id: "text:1",
    });
  });

  it("replays live changes onto a reloaded copy, at its revision, dropping those that no longer apply", () => {
    const reloaded: AssistantMessage = { ...addStreamingPart(open(), "text:1", "text").message, revision: 4 };
    const live = replayLive(
      reloaded,
      [
        (message) => startStep(message, "step-start:2"),
        (message) => appendStreamedText(message, "text:1", "hi"),
        (message) => appendStreamedText(message, "text:gone", "x"),
      ],
      NOW,
    );
    expect(live.transitions).toHaveLength(2);
    expect(live.message.revision).toBe(4);
    expect(live.message.parts.map((part) => part.part_id)).toEqual([
      "step-start:1",
      "text:1",
      "step-start:2",
    ]);
    expect(live.message.parts[1]).toMatchObject({ text: "hi" });
  });

  it("a live step-start is published; the model stream's end rides along, unpublished", () => {
    expect(startStep(open(), "step-start:2").rides_along).toBeUndefined();
    expect(finishModelStream(open())?.rides_along).toBe(true);
    expect(markInteractionResumed(open(), "interaction:none", NOW)).toBeNull();
  });
});
