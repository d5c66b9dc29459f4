import { describe, expect, it } from "vitest";
import type { AssistantMessage, SessionMessage } from "../../schema/messages.js";
import type { PromptCommand, SessionCommand, SetCommand, StopCommand } from "../../schema/session-command.js";
import {
  buildAssistantMessage,
  buildInteraction,
  buildToolPart,
  buildUserMessage,
  T0,
} from "../../testing/fixtures.js";
import { planQueue, queuedStop, queueNeedsDriver } from "./queue-plan.js";

const base = {
  session_id: "session:a",
  request_id: null,
  turn_id: null,
  status: "queued",
  created_at: T0,
} as const;

function prompt(id: string, turn_id: string | null): PromptCommand {
  return { ...base, command_id: id, kind: "prompt", input: { query: `query ${id}` }, turn_id };
}

function set(id: string): SetCommand {
  return {
    ...base,
    command_id: id,
    kind: "set",
    input: {
      input: { security: { approval_mode: "always-allow" } },
      persist_action: true,
      publish_mutation: true,
    },
  };
}

function stop(id: string, reason: StopCommand["input"]["reason"] = "turn_stopped"): StopCommand {
  return { ...base, command_id: id, kind: "stop", input: { reason }, result: null };
}

/** An open assistant message whose model stream finished; `waiting` makes its one tool wait for a person. */
function openMessage(waiting: boolean): AssistantMessage {
  return buildAssistantMessage({
    session_id: "session:a",
    message_id: "assistant:1",
    sequence: 2,
    model_stream: "finished",
    parts: [
      buildToolPart({
        sequence: 1,
        tool_call_id: "call:1",
        state: waiting ? "waiting-user" : "ready",
        interactions: waiting
          ? [buildInteraction({ interaction_id: "interaction:1", tool_call_id: "call:1" })]
          : [],
      }),
    ],
  });
}

const parking = { park_waiting_turns: true };
const noParking = { park_waiting_turns: false };

describe("planQueue: what a session's queued commands mean to the new lease holder", () => {
  it("an empty queue and no open Turn: nothing to drive", () => {
    expect(planQueue([], [], parking)).toEqual({ kind: "nothing" });
  });

  it("only set commands: nothing to drive (they wait for the next Turn's start)", () => {
    expect(planQueue([set("c1"), set("c2")], [], parking)).toEqual({ kind: "nothing" });
  });

  it("a queued prompt starts its Turn after the set commands ahead of it; later ones wait", () => {
    const first = prompt("c2", "turn:1");
    const plan = planQueue([set("c1"), first, set("c3"), prompt("c4", "turn:1")], [], parking);
    expect(plan).toEqual({ kind: "start_turn", turn_id: "turn:1", prompt: first, configs: [set("c1")] });
  });

  it("a prompt without a Turn assigned starts nothing", () => {
    expect(planQueue([prompt("c1", null)], [], parking)).toEqual({ kind: "nothing" });
  });

  it("a stop with no open Turn cancels the queued prompts of the Turn that never started and answers every stop", () => {
    const plan = planQueue(
      [prompt("c1", "turn:1"), stop("c2"), prompt("c3", "turn:1"), stop("c4", "session_disposed")],
      [],
      parking,
    );
    expect(plan).toEqual({
      kind: "cancel_queued",
      turn_id: "turn:1",
      cancelled_prompts: 2,
      stop_command_ids: ["c2", "c4"],
    });
  });

  it("a stop alone answers the stop and cancels no Turn", () => {
    expect(planQueue([set("c1"), stop("c2")], [], parking)).toEqual({
      kind: "cancel_queued",
      turn_id: null,
      cancelled_prompts: 0,
      stop_command_ids: ["c2"],
    });
  });

  it("an open Turn whose owner is gone, with a stop queued: it closes stopped with the first stop's reason", () => {
    const message = openMessage(false);
    const plan = planQueue(
      [prompt("c1", "turn:1"), stop("c2", "session_disposed"), stop("c3")],
      [message],
      parking,
    );
    expect(plan).toEqual({ kind: "stop_open_turn", message, reason: "session_disposed" });
  });

  it("an open Turn waiting for a person stays parked when parking is on; its prompts wait for the answer", () => {
    const message = openMessage(true);
    expect(planQueue([prompt("c1", "turn:1")], [message], parking)).toEqual({
      kind: "park_open_turn",
      message,
    });
  });

  it("an open Turn waiting for a person is resumed when parking is off", () => {
    const message = openMessage(true);
    expect(planQueue([], [message], noParking)).toEqual({ kind: "resume_open_turn", message });
  });

  it("an open Turn with runnable tools is resumed, ahead of any queued prompt", () => {
    const message = openMessage(false);
    expect(planQueue([prompt("c1", "turn:2")], [message], parking)).toEqual({
      kind: "resume_open_turn",
      message,
    });
  });

  it("only the last open message counts, and only when it is an assistant message", () => {
    const message = openMessage(false);
    const user: SessionMessage = buildUserMessage({
      session_id: "session:a",
      message_id: "user:1",
      sequence: 3,
    });
    expect(planQueue([prompt("c1", "turn:1")], [message, user], parking)).toEqual({
      kind: "start_turn",
      turn_id: "turn:1",
      prompt: prompt("c1", "turn:1"),
      configs: [],
    });
  });
});

describe("queuedStop and queueNeedsDriver", () => {
  const commands: SessionCommand[] = [set("c1"), stop("c2", "session_disposed"), stop("c3")];

  it("the first queued stop is the one a Turn stops with", () => {
    expect(queuedStop(commands)?.command_id).toBe("c2");
    expect(queuedStop([set("c1")])).toBeUndefined();
  });

  it("a prompt or a stop needs a driver; set commands alone do not", () => {
    expect(queueNeedsDriver([])).toBe(false);
    expect(queueNeedsDriver([set("c1")])).toBe(false);
    expect(queueNeedsDriver([set("c1"), prompt("c2", "turn:1")])).toBe(true);
    expect(queueNeedsDriver([stop("c1")])).toBe(true);
  });
});
