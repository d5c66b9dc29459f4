import type {
  AssistantMessage,
  AssistantPart,
  SessionInfo,
  SessionMutation,
  SessionStatus,
} from "@parley/sdk";
import { describe, expect, it } from "vitest";
import {
  createSessionViewState,
  orderedMessages,
  type SessionAction,
  type SessionViewState,
  sessionViewReducer,
} from "./session-state";

const SID = "session:live";
const REPLY = "assistant:2";

const runningStatus: SessionStatus = {
  session_id: SID,
  state: "running",
  model_id: null,
  effective_model_id: null,
  security: {
    approval_mode: "ask",
    effective_approval_mode: "ask",
    tool_allowances: [],
    effective_tool_allowances: [],
  },
};

const info: SessionInfo = {
  session_id: SID,
  owner_id: "user:1",
  agent_id: "default",
  title: "Live",
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
  state: "running",
};

function reply(revision: number, parts: AssistantPart[]): AssistantMessage {
  return {
    session_id: SID,
    message_id: REPLY,
    turn_id: "turn:1",
    sequence: 2,
    revision,
    created_at: 1,
    updated_at: 1,
    type: "assistant",
    segment_index: 1,
    status: "streaming",
    model_stream: "streaming",
    parts,
  };
}

const text = (value: string, state: "streaming" | "done" = "streaming"): AssistantPart => ({
  part_id: "text:1",
  sequence: 2,
  type: "text",
  text: value,
  state,
});

const tool = (state: "input-streaming" | "ready" | "waiting-user", input_text: string): AssistantPart => ({
  part_id: "tool:call_1",
  sequence: 3,
  type: "tool",
  tool_call_id: "call_1",
  tool_name: "delete_file",
  state,
  input_text,
});

const common = { session_id: SID, created_at: 1, turn_id: "turn:1", message_id: REPLY };

/** The whole reply, durable (a checkpoint) or `live`. */
function message(event_id: number, revision: number, parts: AssistantPart[], live = false): SessionMutation {
  return {
    ...common,
    mutation_id: `message:${event_id}:${revision}`,
    event_id,
    variant: "message",
    type: "assistant",
    sequence: 2,
    revision,
    message: reply(revision, parts),
    ...(live ? { live: true as const } : {}),
  };
}

function part(event_id: number, revision: number, value: AssistantPart, live = false): SessionMutation {
  return {
    ...common,
    mutation_id: `part:${event_id}:${revision}`,
    event_id,
    variant: "part",
    type: value.type,
    revision,
    part_id: value.part_id,
    part: value,
    ...(live ? { live: true as const } : {}),
  };
}

/** A live text delta on revision `revision`, following durable event `event_id`. */
function delta(event_id: number, revision: number, fragment: string): SessionMutation {
  return {
    ...common,
    mutation_id: `delta:${fragment}`,
    event_id,
    variant: "delta",
    type: "text",
    revision,
    part_id: "text:1",
    delta: fragment,
    live: true,
  };
}

function apply(state: SessionViewState, ...actions: (SessionMutation | SessionAction)[]): SessionViewState {
  return actions.reduce(
    (current, action) =>
      sessionViewReducer(current, "variant" in action ? { type: "mutation", mutation: action } : action),
    state,
  );
}

/** Ready with no messages, the feed at durable event 7 (the Turn's start). */
function started(): SessionViewState {
  const loaded = sessionViewReducer(createSessionViewState(SID), {
    type: "snapshot",
    snapshot: {
      info,
      messages: [],
      status: runningStatus,
    },
  });
  return apply(loaded, {
    ...common,
    mutation_id: "turn:start",
    event_id: 7,
    variant: "turn",
    type: "start",
    status: "running",
  } as SessionMutation);
}

/** The reply as the view shows it: revision and its parts' text or tool state. */
function shown(state: SessionViewState) {
  const found = orderedMessages(state).find((entry) => entry.message_id === REPLY);
  if (found?.type !== "assistant") return null;
  return {
    revision: found.revision,
    parts: found.parts.map((entry) =>
      entry.type === "text" ? entry.text : entry.type === "tool" ? `${entry.state} ${entry.input_text}` : "?",
    ),
  };
}

describe("live mutations in the session view (§10.6)", () => {
  it("shows a reply being written before its first checkpoint, growing with each live delta", () => {
    let state = apply(started(), message(7, 0, [], true), part(7, 0, text(""), true), delta(7, 0, "Hel"));
    expect(shown(state)).toEqual({ revision: 0, parts: ["Hel"] });
    state = apply(state, delta(7, 0, "lo"));
    expect(shown(state)).toEqual({ revision: 0, parts: ["Hello"] });
    // Live state is kept apart: nothing durable changed, the feed's position did not move.
    expect(state.messages.has(REPLY)).toBe(false);
    expect(state.last_event_id).toBe(7);
  });

  it("replaces live text with the checkpoint that persists it, once, and follows live text after it", () => {
    let state = apply(started(), message(7, 0, [text("")], true), delta(7, 0, "Hel"), delta(7, 0, "lo"));
    state = apply(state, message(8, 1, [text("Hello")]));
    expect(shown(state)).toEqual({ revision: 1, parts: ["Hello"] });
    state = apply(state, delta(8, 1, " wor"), delta(8, 1, "ld"));
    expect(shown(state)).toEqual({ revision: 1, parts: ["Hello world"] });
    state = apply(state, part(9, 2, text("Hello world", "done")));
    expect(shown(state)).toEqual({ revision: 2, parts: ["Hello world"] });
    expect(state.last_event_id).toBe(9);
  });

  it("ignores a stale live mutation: one that follows an older durable event than the view's last", () => {
    const state = apply(
      started(),
      message(7, 0, [text("")], true),
      delta(7, 0, "Hi"),
      message(8, 1, [text("Hi")]),
    );
    expect(apply(state, delta(7, 0, "!"))).toBe(state);
    expect(apply(state, delta(8, 0, "!"))).toBe(state);
    expect(apply(state, message(7, 0, [text("old")], true))).toBe(state);
    expect(shown(state)).toEqual({ revision: 1, parts: ["Hi"] });
  });

  it("updates the tool card through input-streaming and ready, then shows its checkpoint", () => {
    let state = apply(started(), message(8, 1, [text("Deleting.", "done")]));
    state = apply(state, part(8, 1, tool("input-streaming", '{"pa'), true));
    expect(shown(state)).toEqual({ revision: 1, parts: ["Deleting.", 'input-streaming {"pa'] });
    state = apply(state, part(8, 1, tool("ready", '{"path":"a"}'), true));
    expect(shown(state)).toEqual({ revision: 1, parts: ["Deleting.", 'ready {"path":"a"}'] });
    state = apply(state, message(9, 2, [text("Deleting.", "done"), tool("waiting-user", '{"path":"a"}')]));
    expect(shown(state)).toEqual({ revision: 2, parts: ["Deleting.", 'waiting-user {"path":"a"}'] });
    expect(state.live.get(REPLY)).toEqual({ revision: 2 });
  });

  it("drops every live state on reconnect and follows again only from the next checkpoint", () => {
    let state = apply(started(), message(7, 0, [text("")], true), delta(7, 0, "Hel"));
    state = apply(state, { type: "reconnected" });
    expect(shown(state)).toBeNull();
    expect(state.live.size).toBe(0);
    // Deltas streamed while the feed was down are gone: the ones after it must not make "Hel…ld".
    state = apply(state, delta(7, 0, "ld"));
    expect(shown(state)).toBeNull();
    // The re-read brings the stream checkpoint; live text on it may already have been missed too.
    state = apply(state, { type: "merge", messages: [reply(1, [text("Hello wor")])] });
    state = apply(state, delta(8, 1, "ld"));
    expect(shown(state)).toEqual({ revision: 1, parts: ["Hello wor"] });
    state = apply(state, part(9, 2, text("Hello world")), delta(9, 2, "!"));
    expect(shown(state)).toEqual({ revision: 2, parts: ["Hello world!"] });
  });

  it("does not follow live text on a message known only from the snapshot until its next checkpoint", () => {
    // A late joiner: the deltas on revision 1 that came before it are not in the snapshot.
    let state = sessionViewReducer(createSessionViewState(SID), {
      type: "snapshot",
      snapshot: { info, messages: [reply(1, [text("Hel")])], status: runningStatus },
    });
    state = apply(state, delta(8, 1, "ld"));
    expect(shown(state)).toEqual({ revision: 1, parts: ["Hel"] });
    state = apply(state, part(9, 2, text("Hello wor")), delta(9, 2, "ld"));
    expect(shown(state)).toEqual({ revision: 2, parts: ["Hello world"] });
  });

  it("drops live mutations buffered while loading when the feed reconnects before the snapshot", () => {
    let state = apply(createSessionViewState(SID), message(7, 0, [text("Hi")], true), delta(7, 0, "!"));
    state = apply(state, { type: "reconnected" }, message(8, 1, [text("Hi there")]));
    expect(state.buffer).toHaveLength(1);
    state = sessionViewReducer(state, {
      type: "snapshot",
      snapshot: { info, messages: [], status: runningStatus },
    });
    expect(shown(state)).toEqual({ revision: 1, parts: ["Hi there"] });
  });

  it("applies live mutations buffered while loading on top of the snapshot, by revision", () => {
    let state = apply(createSessionViewState(SID), message(8, 1, [text("Hel")]), delta(8, 1, "lo"));
    expect(state.buffer).toHaveLength(2);
    state = sessionViewReducer(state, {
      type: "snapshot",
      snapshot: {
        info: started().info ?? (null as never),
        messages: [reply(1, [text("Hel")])],
        status: runningStatus,
      },
    });
    expect(shown(state)).toEqual({ revision: 1, parts: ["Hello"] });
    expect(state.last_event_id).toBe(8);
  });
});
