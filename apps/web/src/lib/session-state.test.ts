import type {
  AssistantMessage,
  Interaction,
  SessionInfo,
  SessionMutation,
  SessionStatus,
  ToolPart,
  UserMessage,
} from "@parley/sdk";
import { describe, expect, it } from "vitest";
import {
  createSessionViewState,
  interactionEntries,
  isModeChangePending,
  isTurnRunning,
  orderedMessages,
  pendingInteractionCount,
  type SessionViewState,
  sessionViewReducer,
} from "./session-state";

const SID = "session:a";
const base = { session_id: SID, created_at: 1, updated_at: 1 };

function info(overrides: Partial<SessionInfo> = {}): SessionInfo {
  return {
    session_id: SID,
    owner_id: "user:1",
    agent_id: "default",
    title: "Deploy",
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

function status(overrides: Partial<SessionStatus> = {}): SessionStatus {
  return {
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
    ...overrides,
  };
}

function user(sequence: number, text: string): UserMessage {
  return {
    ...base,
    message_id: `user:${sequence}`,
    turn_id: "turn:1",
    sequence,
    revision: 1,
    type: "user",
    input_type: "prompt",
    parts: [{ part_id: `p${sequence}`, type: "text", text, state: "done" }],
  };
}

function assistant(sequence: number, revision: number, parts: AssistantMessage["parts"]): AssistantMessage {
  return {
    ...base,
    message_id: `assistant:${sequence}`,
    turn_id: "turn:1",
    sequence,
    revision,
    type: "assistant",
    segment_index: 1,
    status: "streaming",
    model_stream: "streaming",
    parts,
  };
}

function approval(status: Interaction["status"], extra: Partial<Interaction> = {}): Interaction {
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
    ...extra,
  };
}

function tool(state: ToolPart["state"], interactions?: Interaction[]): ToolPart {
  return {
    part_id: "tool:call_1",
    sequence: 2,
    type: "tool",
    tool_call_id: "call_1",
    tool_name: "delete_file",
    state,
    input: { path: "notes.txt" },
    ...(interactions ? { interactions } : {}),
  };
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type MutationFields = DistributiveOmit<SessionMutation, "mutation_id" | "session_id" | "created_at">;

let nextMutationId = 0;
function mutation(fields: MutationFields): SessionMutation {
  nextMutationId += 1;
  return { mutation_id: `m${nextMutationId}`, session_id: SID, created_at: 1, ...fields } as SessionMutation;
}

function reduce(state: SessionViewState, ...mutations: SessionMutation[]): SessionViewState {
  return mutations.reduce(
    (current, m) => sessionViewReducer(current, { type: "mutation", mutation: m }),
    state,
  );
}

function loaded(messages: (UserMessage | AssistantMessage)[], statusOverrides: Partial<SessionStatus> = {}) {
  return sessionViewReducer(createSessionViewState(SID), {
    type: "snapshot",
    snapshot: { info: info(), messages, status: status(statusOverrides) },
  });
}

const textPart = (text: string, state: "streaming" | "done" = "streaming") =>
  ({ part_id: "text:1", sequence: 1, type: "text", text, state }) as const;

describe("sessionViewReducer", () => {
  it("buffers mutations until the snapshot arrives, then applies them on top of it", () => {
    let state = createSessionViewState(SID);
    state = reduce(
      state,
      mutation({ event_id: 7, variant: "turn", type: "start", turn_id: "turn:1", status: "running" }),
      mutation({
        event_id: 8,
        variant: "delta",
        type: "text",
        message_id: "assistant:2",
        revision: 3,
        part_id: "text:1",
        delta: " world",
      }),
    );
    expect(state.phase).toBe("loading");
    expect(state.buffer).toHaveLength(2);

    state = sessionViewReducer(state, {
      type: "snapshot",
      snapshot: {
        info: info(),
        messages: [user(1, "hi"), assistant(2, 2, [textPart("hello")])],
        status: status(),
      },
    });
    expect(state.phase).toBe("ready");
    expect(state.buffer).toHaveLength(0);
    expect(state.last_event_id).toBe(8);
    expect(isTurnRunning(state.turn)).toBe(true);
    const reply = orderedMessages(state)[1];
    expect(reply?.type === "assistant" && reply.parts[0]?.type === "text" && reply.parts[0].text).toBe(
      "hello world",
    );
  });

  it("does not append a delta the snapshot already contains", () => {
    let state = createSessionViewState(SID);
    state = reduce(
      state,
      mutation({
        event_id: 3,
        variant: "delta",
        type: "text",
        message_id: "assistant:2",
        revision: 2,
        part_id: "text:1",
        delta: "lo",
      }),
    );
    state = sessionViewReducer(state, {
      type: "snapshot",
      snapshot: { info: info(), messages: [assistant(2, 2, [textPart("hello")])], status: status() },
    });
    const reply = state.messages.get("assistant:2");
    expect(reply?.type === "assistant" && reply.parts[0]?.type === "text" && reply.parts[0].text).toBe(
      "hello",
    );
  });

  it("ignores a mutation whose event_id was already applied", () => {
    let state = loaded([assistant(2, 1, [textPart("a")])]);
    const delta = mutation({
      event_id: 4,
      variant: "delta",
      type: "text",
      message_id: "assistant:2",
      revision: 2,
      part_id: "text:1",
      delta: "b",
    });
    state = reduce(state, delta, delta);
    const reply = state.messages.get("assistant:2");
    expect(reply?.type === "assistant" && reply.parts[0]?.type === "text" && reply.parts[0].text).toBe("ab");
  });

  it("upserts messages only when the revision is newer", () => {
    let state = loaded([assistant(2, 3, [textPart("new")])]);
    state = reduce(
      state,
      mutation({
        event_id: 1,
        variant: "message",
        type: "assistant",
        message_id: "assistant:2",
        sequence: 2,
        revision: 2,
        message: assistant(2, 2, [textPart("old")]),
      }),
    );
    let reply = state.messages.get("assistant:2");
    expect(reply?.revision).toBe(3);
    state = reduce(
      state,
      mutation({
        event_id: 2,
        variant: "message",
        type: "assistant",
        message_id: "assistant:2",
        sequence: 2,
        revision: 4,
        message: { ...assistant(2, 4, [textPart("new", "done")]), status: "completed" },
      }),
    );
    reply = state.messages.get("assistant:2");
    expect(reply?.type === "assistant" && reply.status).toBe("completed");
  });

  it("updates one tool part in place through its states and keeps one pending card per interaction", () => {
    let state = loaded([
      user(1, "delete notes.txt"),
      assistant(2, 2, [textPart("ok", "done"), tool("ready")]),
    ]);
    const partMutation = (event_id: number, revision: number, part: ToolPart) =>
      mutation({
        event_id,
        variant: "part",
        type: "tool",
        message_id: "assistant:2",
        revision,
        part_id: part.part_id,
        part,
      });
    state = reduce(state, partMutation(10, 3, tool("waiting-user", [approval("pending")])));
    // the same snapshot re-delivered (e.g. from a buffer overlapping the snapshot) changes nothing
    state = reduce(state, partMutation(11, 3, tool("waiting-user", [approval("pending")])));
    expect(interactionEntries(state).map((entry) => entry.interaction.interaction_id)).toEqual([
      "interaction:1",
    ]);
    expect(pendingInteractionCount(state)).toBe(1);

    state = reduce(
      state,
      partMutation(12, 4, tool("running", [approval("resolved", { responded_by: "user:2" })])),
      partMutation(13, 5, tool("completed", [approval("resolved", { responded_by: "user:2" })])),
    );
    const reply = orderedMessages(state)[1];
    expect(reply?.type === "assistant" && reply.parts.map((part) => part.part_id)).toEqual([
      "text:1",
      "tool:call_1",
    ]);
    expect(reply?.type === "assistant" && reply.parts[1]?.type === "tool" && reply.parts[1].state).toBe(
      "completed",
    );
    expect(pendingInteractionCount(state)).toBe(0);
    expect(interactionEntries(state)[0]?.interaction.responded_by).toBe("user:2");
  });

  it("drops a part mutation older than the message it targets", () => {
    let state = loaded([assistant(2, 5, [tool("completed")])]);
    state = reduce(
      state,
      mutation({
        event_id: 1,
        variant: "part",
        type: "tool",
        message_id: "assistant:2",
        revision: 4,
        part_id: "tool:call_1",
        part: tool("running"),
      }),
    );
    const reply = state.messages.get("assistant:2");
    expect(reply?.type === "assistant" && reply.parts[0]?.type === "tool" && reply.parts[0].state).toBe(
      "completed",
    );
  });

  it("orders messages and parts by sequence regardless of arrival order", () => {
    const reply = assistant(3, 1, [
      { part_id: "text:2", sequence: 3, type: "text", text: "after", state: "done" },
      tool("completed"),
      { part_id: "text:1", sequence: 1, type: "text", text: "before", state: "done" },
    ]);
    const state = loaded([reply, user(1, "a"), user(2, "b")]);
    const ordered = orderedMessages(state);
    expect(ordered.map((message) => message.sequence)).toEqual([1, 2, 3]);
    const last = ordered[2];
    expect(last?.type === "assistant" && last.parts.map((part) => part.sequence)).toEqual([1, 2, 3]);
  });

  it("tracks running turns from turn mutations, including cancelled queued prompts during stop", () => {
    let state = loaded([], { state: "running", active_turn_id: "turn:1" });
    expect(isTurnRunning(state.turn)).toBe(true);
    state = reduce(
      state,
      mutation({ event_id: 1, variant: "turn", type: "start", turn_id: "turn:x", status: "running" }),
      mutation({ event_id: 2, variant: "turn", type: "finish", turn_id: "turn:x", status: "failed" }),
    );
    expect(state.turn.running_turn_ids).toEqual(["turn:1"]);
    state = reduce(
      state,
      mutation({ event_id: 3, variant: "turn", type: "finish", turn_id: "turn:1", status: "stopped" }),
    );
    expect(isTurnRunning(state.turn)).toBe(false);
  });

  it("shows a pending approval-mode change until the effective mode catches up", () => {
    let state = loaded([]);
    state = reduce(
      state,
      mutation({ event_id: 1, variant: "session", type: "config", approval_mode: "always-allow" }),
    );
    expect(state.security).toEqual({
      approval_mode: "always-allow",
      effective_approval_mode: "ask",
      tool_allowances: [],
      effective_tool_allowances: [],
    });
    expect(isModeChangePending(state)).toBe(true);
    state = reduce(
      state,
      mutation({ event_id: 2, variant: "session", type: "config", effective_approval_mode: "always-allow" }),
    );
    expect(isModeChangePending(state)).toBe(false);
    expect(state.info?.effective_approval_mode).toBe("always-allow");
  });

  it("follows the configured and effective tool allowances of config mutations", () => {
    const shell = { tool_name: "shell", command_prefix: "npm test" };
    let state = reduce(
      loaded([]),
      mutation({ event_id: 1, variant: "session", type: "config", tool_allowances: [shell] }),
    );
    expect(state.security?.tool_allowances).toEqual([shell]);
    expect(state.security?.effective_tool_allowances).toEqual([]);
    state = reduce(
      state,
      mutation({ event_id: 2, variant: "session", type: "config", effective_tool_allowances: [shell] }),
    );
    expect(state.security?.effective_tool_allowances).toEqual([shell]);
    expect(state.info?.effective_tool_allowances).toEqual([shell]);
  });

  it("ignores mutations of another session and keeps a load error visible", () => {
    let state = loaded([]);
    state = sessionViewReducer(state, {
      type: "mutation",
      mutation: {
        ...mutation({ event_id: 1, variant: "session", type: "title", title: "x" }),
        session_id: "other",
      },
    });
    expect(state.info?.title).toBe("Deploy");
    expect(state.last_event_id).toBe(0);
    const failed = sessionViewReducer(createSessionViewState(SID), { type: "error", message: "boom" });
    expect(failed).toMatchObject({ phase: "error", error: "boom" });
  });

  it("merges re-read messages by revision and keeps the older-page cursor unless given", () => {
    let state = sessionViewReducer(createSessionViewState(SID), {
      type: "snapshot",
      snapshot: {
        info: info(),
        messages: [assistant(3, 4, [tool("waiting-user")])],
        status: status(),
        older_before_sequence: 3,
      },
    });
    state = sessionViewReducer(state, {
      type: "merge",
      messages: [assistant(3, 3, [tool("ready")]), user(1, "a")],
    });
    expect(state.older_before_sequence).toBe(3);
    expect(orderedMessages(state).map((message) => [message.sequence, message.revision])).toEqual([
      [1, 1],
      [3, 4],
    ]);
    state = sessionViewReducer(state, {
      type: "merge",
      messages: [assistant(3, 5, [tool("failed")])],
      older_before_sequence: null,
    });
    expect(state.older_before_sequence).toBeNull();
    const reply = state.messages.get("assistant:3");
    expect(reply?.type === "assistant" && reply.parts[0]?.type === "tool" && reply.parts[0].state).toBe(
      "failed",
    );
  });

  it("starts over on reset, buffering again until the next snapshot", () => {
    let state = loaded([user(1, "hi")]);
    state = reduce(state, mutation({ event_id: 9, variant: "session", type: "title", title: "Renamed" }));
    state = sessionViewReducer(state, { type: "reset" });
    expect(state).toMatchObject({ phase: "loading", last_event_id: 0, buffer: [] });
    expect(state.messages.size).toBe(0);
  });
});
