import type { AssistantMessage, Interaction, SessionInfo, SessionMutation, SessionStatus } from "@parley/sdk";
import { describe, expect, it } from "vitest";
import { isSameSummary, summarizeSessionView, withLiveSummary } from "./live-session-summary";
import { createSessionViewState, type SessionViewState, sessionViewReducer } from "./session-state";

const SID = "session:a";

function info(overrides: Partial<SessionInfo> = {}): SessionInfo {
  return {
    session_id: SID,
    owner_id: "user:1",
    agent_id: "default",
    title: "Keep my notes",
    workspace_id: null,
    created_at: 1,
    updated_at: 1,
    closed_at: null,
    approval_mode: "ask",
    effective_approval_mode: "ask",
    tool_allowances: [],
    effective_tool_allowances: [],
    model_id: null,
    effective_model_id: null,
    pending_interactions: 0,
    state: "idle",
    ...overrides,
  };
}

const idleStatus: SessionStatus = {
  session_id: SID,
  state: "idle",
  model_id: null,
  effective_model_id: null,
  security: {
    approval_mode: "ask",
    effective_approval_mode: "ask",
    tool_allowances: [],
    effective_tool_allowances: [],
  },
};

function approval(status: Interaction["status"]): Interaction {
  return {
    interaction_id: "interaction:1",
    interaction_type: "approval",
    status,
    request: {
      interaction_id: "interaction:1",
      turn_id: "turn:1",
      type: "approval",
      source: { type: "tool", tool_call_id: "call_1", tool_name: "delete_file" },
      payload: { operation: "tool", validated_input: { path: "notes.txt" } },
      created_at: 5,
    },
  };
}

function assistantWith(revision: number, interaction: Interaction): AssistantMessage {
  return {
    session_id: SID,
    created_at: 1,
    updated_at: 1,
    message_id: "assistant:2",
    turn_id: "turn:1",
    sequence: 2,
    revision,
    type: "assistant",
    segment_index: 1,
    status: "streaming",
    model_stream: "streaming",
    parts: [
      {
        part_id: "tool:call_1",
        sequence: 1,
        type: "tool",
        tool_call_id: "call_1",
        tool_name: "delete_file",
        state: interaction.status === "pending" ? "waiting-user" : "failed",
        input: { path: "notes.txt" },
        interactions: [interaction],
      },
    ] as AssistantMessage["parts"],
  };
}

let eventId = 0;
function apply(state: SessionViewState, fields: Record<string, unknown>): SessionViewState {
  eventId += 1;
  const mutation = {
    mutation_id: `m${eventId}`,
    session_id: SID,
    created_at: 1,
    event_id: eventId,
    ...fields,
  } as SessionMutation;
  return sessionViewReducer(state, { type: "mutation", mutation });
}

function loadedIdle(): SessionViewState {
  return sessionViewReducer(createSessionViewState(SID), {
    type: "snapshot",
    snapshot: { info: info(), messages: [], status: idleStatus },
  });
}

describe("summarizeSessionView", () => {
  it("is null until the snapshot arrived", () => {
    expect(summarizeSessionView(createSessionViewState(SID))).toBeNull();
  });

  it("follows the Turn and the pending Interactions through an approve-or-deny round", () => {
    let state = loadedIdle();
    expect(summarizeSessionView(state)).toEqual({
      session_id: SID,
      title: "Keep my notes",
      state: "idle",
      pending_interactions: 0,
    });

    state = apply(state, { variant: "turn", type: "start", turn_id: "turn:1", status: "running" });
    state = apply(state, {
      variant: "message",
      message_id: "assistant:2",
      message: assistantWith(2, approval("pending")),
    });
    expect(summarizeSessionView(state)).toMatchObject({ state: "running", pending_interactions: 1 });

    state = apply(state, {
      variant: "message",
      message_id: "assistant:2",
      message: assistantWith(3, approval("denied")),
    });
    expect(summarizeSessionView(state)).toMatchObject({ state: "running", pending_interactions: 0 });

    state = apply(state, { variant: "turn", type: "finish", turn_id: "turn:1", status: "completed" });
    expect(summarizeSessionView(state)).toMatchObject({ state: "idle", pending_interactions: 0 });
  });

  it("says closed once the session is closed, whatever the Turn", () => {
    let state = loadedIdle();
    state = apply(state, { variant: "turn", type: "start", turn_id: "turn:1", status: "running" });
    state = apply(state, { variant: "session", closed_at: 9 });
    expect(summarizeSessionView(state)).toMatchObject({ state: "closed" });
  });
});

describe("withLiveSummary", () => {
  const live = { session_id: SID, title: "Keep my notes", state: "idle" as const, pending_interactions: 0 };

  it("replaces a stale state and badge count of the same session", () => {
    const stale = info({ state: "running", pending_interactions: 1, updated_at: 42 });
    expect(withLiveSummary(stale, live)).toEqual({ ...stale, state: "idle", pending_interactions: 0 });
  });

  it("leaves other sessions and agreeing entries untouched", () => {
    const other = info({ session_id: "session:b", state: "running", pending_interactions: 2 });
    expect(withLiveSummary(other, live)).toBe(other);
    const same = info();
    expect(withLiveSummary(same, live)).toBe(same);
    expect(withLiveSummary(same, null)).toBe(same);
  });
});

describe("isSameSummary", () => {
  it("compares every field", () => {
    const a = { session_id: SID, title: "t", state: "idle" as const, pending_interactions: 0 };
    expect(isSameSummary(a, { ...a })).toBe(true);
    expect(isSameSummary(a, { ...a, pending_interactions: 1 })).toBe(false);
    expect(isSameSummary(a, { ...a, state: "running" })).toBe(false);
    expect(isSameSummary(a, null)).toBe(false);
    expect(isSameSummary(null, null)).toBe(true);
  });
});
