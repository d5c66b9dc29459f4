import { describe, expect, it } from "vitest";
import type { Interaction } from "../../schema/interaction.js";
import type { AssistantMessage } from "../../schema/messages.js";
import type { ToolPart } from "../../schema/parts.js";
import { buildAssistantMessage, buildToolPart } from "../../testing/fixtures.js";
import { planResume } from "./resume-plan.js";

function interaction(status: Interaction["status"], resumed = false): Interaction {
  return {
    interaction_id: `interaction:${status}`,
    interaction_type: "approval",
    status,
    request: {
      interaction_id: `interaction:${status}`,
      turn_id: "turn:1",
      type: "approval",
      source: { type: "tool", tool_call_id: "call" },
      payload: {},
      created_at: 1,
    },
    ...(status === "pending" ? {} : { resolved_at: 2 }),
    ...(resumed ? { resumed_at: 3 } : {}),
  } as Interaction;
}

function message(
  tools: { id: string; state: ToolPart["state"]; interactions?: Interaction[] }[],
  streaming = false,
) {
  const built = buildAssistantMessage({
    session_id: "session:a",
    message_id: "assistant:1",
    sequence: 2,
    parts: tools.map((tool, index) =>
      buildToolPart({
        sequence: index + 1,
        tool_call_id: tool.id,
        tool_name: "delete_file",
        state: tool.state,
        interactions: tool.interactions ?? [],
      }),
    ),
  });
  return { ...built, model_stream: streaming ? "streaming" : "finished" } as AssistantMessage;
}

describe("planResume: what a Turn found in the database does next, per crash phase", () => {
  it("the model's stream was cut: the Step is not replayed, the Turn is interrupted", () => {
    expect(planResume(message([{ id: "a", state: "input-streaming" }], true))).toEqual({ kind: "interrupt" });
  });

  it("before any tool was committed (the Step's stream finished with text only): nothing re-runs, the Turn goes on", () => {
    expect(planResume(message([]))).toEqual({ kind: "resume", fail_interrupted: [], rerun: [] });
  });

  it("streamed tool input never completed: the tool fails as interrupted", () => {
    expect(planResume(message([{ id: "a", state: "input-streaming" }]))).toEqual({
      kind: "resume",
      fail_interrupted: ["a"],
      rerun: [],
    });
  });

  it("a ready tool (it asked nothing and started no side effect) runs again", () => {
    expect(planResume(message([{ id: "a", state: "ready" }]))).toEqual({
      kind: "resume",
      fail_interrupted: [],
      rerun: ["a"],
    });
  });

  it("a running tool (auto-approved, or its answer handed over) may have done its side effect: it fails as interrupted", () => {
    expect(
      planResume(message([{ id: "a", state: "running", interactions: [interaction("resolved", true)] }])),
    ).toEqual({ kind: "resume", fail_interrupted: ["a"], rerun: [] });
    expect(planResume(message([{ id: "b", state: "running" }]))).toEqual({
      kind: "resume",
      fail_interrupted: ["b"],
      rerun: [],
    });
  });

  it("an approved answer never handed over: the tool runs again and gets the answer once", () => {
    expect(
      planResume(message([{ id: "a", state: "running", interactions: [interaction("resolved")] }])),
    ).toEqual({
      kind: "resume",
      fail_interrupted: [],
      rerun: ["a"],
    });
  });

  it("a tool this process just answered runs again", () => {
    expect(
      planResume(
        message([{ id: "a", state: "running", interactions: [interaction("resolved", true)] }]),
        new Set(["a"]),
      ),
    ).toEqual({ kind: "resume", fail_interrupted: [], rerun: ["a"] });
  });

  it("every open tool waits for a person: the Turn is parked, nobody needs to hold it", () => {
    expect(
      planResume(
        message([
          { id: "a", state: "completed" },
          { id: "b", state: "waiting-user", interactions: [interaction("pending")] },
          { id: "c", state: "waiting-user", interactions: [interaction("pending")] },
        ]),
      ),
    ).toEqual({ kind: "parked" });
  });

  it("one waiting tool and one answered: the answered one is handed over, the waiting one re-attaches", () => {
    expect(
      planResume(
        message([
          { id: "a", state: "running", interactions: [interaction("resolved")] },
          { id: "b", state: "waiting-user", interactions: [interaction("pending")] },
        ]),
      ),
    ).toEqual({ kind: "resume", fail_interrupted: [], rerun: ["a", "b"] });
  });

  it("after completion: a completed tool (its result committed, its answer handed over) neither re-runs nor fails", () => {
    expect(
      planResume(
        message([
          { id: "a", state: "completed", interactions: [interaction("resolved", true)] },
          { id: "b", state: "completed" },
        ]),
      ),
    ).toEqual({ kind: "resume", fail_interrupted: [], rerun: [] });
  });

  it("a waiting tool with one Interaction answered and its latest still pending: the Turn stays parked", () => {
    expect(
      planResume(
        message([
          {
            id: "a",
            state: "waiting-user",
            interactions: [interaction("resolved"), interaction("pending")],
          },
        ]),
      ),
    ).toEqual({ kind: "parked" });
  });

  it("every tool ended (a denial failed the last one): the Turn goes on with its next Step", () => {
    expect(
      planResume(message([{ id: "a", state: "failed", interactions: [interaction("denied")] }])),
    ).toEqual({
      kind: "resume",
      fail_interrupted: [],
      rerun: [],
    });
  });
});
