import type {
  AssistantMessage,
  Interaction,
  SessionInfo,
  SessionMessage,
  SessionMutation,
  SessionStatus,
  ToolPart,
} from "@parley/sdk";
import {
  applyLive,
  dropCovered,
  followDurable,
  isLive,
  type LiveMessages,
  upsertPart,
  withLive,
} from "./session-live";

/**
 * The browser's view of one Session: the persisted state the server published, and the live
 * mutations (DESIGN §10.6) on top of it, kept apart in `live` (see `session-live.ts`).
 *
 * Sync protocol (G72, docs/behaviour.md#subscriptions): subscribe first and buffer, load the
 * snapshot, replace the local state with it, then apply the buffer. Until the snapshot arrives
 * `phase` is `loading` and every mutation lands in `buffer`. Merge rules:
 * - `message`: upsert by `message_id` when its revision is newer than the one held;
 * - `part`: upsert by `part_id` inside its message unless the mutation's revision is strictly older
 *   (an equal revision re-applies the same full snapshot, which is harmless);
 * - a durable `delta` (none after §10.6; kept for a server that still sends them): append only
 *   when its revision is newer than the message's (a snapshot taken after the delta already
 *   contains the text, and appending twice would duplicate it);
 * - every durable mutation: ignored when its `event_id` is not above the last applied one;
 * - a live mutation carries the `event_id` it follows: ignored when that is older than the last
 *   applied one (a later checkpoint covers it), else applied to `live`, never moving
 *   `last_event_id`. `reconnected` drops every live state (it is never replayed).
 */
export interface SessionViewState {
  readonly session_id: string;
  readonly phase: "loading" | "ready" | "error";
  readonly error?: string;
  readonly info?: SessionInfo;
  /** The durable messages; `orderedMessages` shows them with their live state. */
  readonly messages: ReadonlyMap<string, SessionMessage>;
  /** Live state per assistant message, on top of `messages`. */
  readonly live: LiveMessages;
  readonly turn: TurnView;
  /** Configured vs effective approval mode and tool allowances, as `status().security` has them. */
  readonly security?: SessionStatus["security"];
  /** Configured vs effective model, like `security` (null: the server's own model). */
  readonly model?: SessionModelState;
  readonly last_event_id: number;
  readonly buffer: readonly SessionMutation[];
  /** Where the next older page of messages starts; null once the whole history is loaded. */
  readonly older_before_sequence: number | null;
  /**
   * How many `session` mutations of type `queue` arrived: each says the server's queued prompts
   * changed, which the view then reads again (`useQueuedPrompts`).
   */
  readonly queue_changes: number;
}

/**
 * Which Turns run, driven by `turn` mutations and `status()`, never guessed by the client. A set,
 * because `stop()` publishes a start/finish pair for each cancelled queued prompt while the active
 * Turn is still winding down.
 */
export interface TurnView {
  readonly running_turn_ids: readonly string[];
  /** `status()` said running without naming the Turn; cleared by the next `finish`. */
  readonly running_unnamed: boolean;
}

export interface SessionModelState {
  readonly model_id: string | null;
  readonly effective_model_id: string | null;
}

function modelOfStatus(status: SessionStatus): SessionModelState {
  return { model_id: status.model_id, effective_model_id: status.effective_model_id };
}

export function isTurnRunning(turn: TurnView): boolean {
  return turn.running_unnamed || turn.running_turn_ids.length > 0;
}

export interface SessionSnapshot {
  readonly info: SessionInfo;
  readonly messages: readonly SessionMessage[];
  readonly status: SessionStatus;
  readonly older_before_sequence?: number | null;
}

export type SessionAction =
  | { type: "mutation"; mutation: SessionMutation }
  | { type: "snapshot"; snapshot: SessionSnapshot }
  /**
   * Messages read outside the subscription (an older page, or a re-read after the server said an
   * Interaction was already answered): upserted by revision like `message` mutations.
   * `older_before_sequence` is given only with an older page.
   */
  | { type: "merge"; messages: readonly SessionMessage[]; older_before_sequence?: number | null }
  | { type: "status"; status: SessionStatus }
  | { type: "error"; message: string }
  /** The subscription resumed after an interruption: what was streamed meanwhile is gone. */
  | { type: "reconnected" }
  /** Start over (a new subscription and snapshot follow). */
  | { type: "reset" };

const idleTurn: TurnView = { running_turn_ids: [], running_unnamed: false };

export function createSessionViewState(session_id: string): SessionViewState {
  return {
    session_id,
    phase: "loading",
    messages: new Map(),
    live: new Map(),
    turn: idleTurn,
    last_event_id: 0,
    buffer: [],
    older_before_sequence: null,
    queue_changes: 0,
  };
}

export function sessionViewReducer(state: SessionViewState, action: SessionAction): SessionViewState {
  switch (action.type) {
    case "mutation":
      if (action.mutation.session_id !== state.session_id) return state;
      if (state.phase === "loading") return { ...state, buffer: [...state.buffer, action.mutation] };
      return applyMutation(state, action.mutation);
    case "snapshot":
      return applySnapshot(state, action.snapshot);
    case "merge": {
      const messages = new Map(state.messages);
      for (const message of action.messages) {
        const held = messages.get(message.message_id);
        if (!held || held.revision < message.revision) messages.set(message.message_id, message);
      }
      // Read outside the feed: it covers older live state, and opens nothing (see `session-live.ts`).
      const live = dropCovered(state.live, messages);
      return action.older_before_sequence === undefined
        ? { ...state, messages, live }
        : { ...state, messages, live, older_before_sequence: action.older_before_sequence };
    }
    case "status":
      // Only the settings: which Turns run is driven by ordered `turn` mutations.
      return state.phase === "ready"
        ? { ...state, security: { ...action.status.security }, model: modelOfStatus(action.status) }
        : state;
    case "reconnected":
      return {
        ...state,
        live: new Map(),
        buffer: state.buffer.filter((mutation) => !isLive(mutation)),
      };
    case "reset":
      return createSessionViewState(state.session_id);
    case "error":
      return state.phase === "loading" ? { ...state, phase: "error", error: action.message } : state;
  }
}

function applySnapshot(state: SessionViewState, snapshot: SessionSnapshot): SessionViewState {
  const messages = new Map<string, SessionMessage>();
  for (const message of snapshot.messages) messages.set(message.message_id, message);
  const { status, info } = snapshot;
  let next: SessionViewState = {
    session_id: state.session_id,
    phase: "ready",
    info,
    messages,
    live: new Map(),
    turn:
      status.state !== "running"
        ? idleTurn
        : status.active_turn_id
          ? { running_turn_ids: [status.active_turn_id], running_unnamed: false }
          : { running_turn_ids: [], running_unnamed: true },
    security: { ...status.security },
    model: modelOfStatus(status),
    last_event_id: state.last_event_id,
    buffer: [],
    older_before_sequence: snapshot.older_before_sequence ?? null,
    queue_changes: state.queue_changes,
  };
  for (const mutation of state.buffer) next = applyMutation(next, mutation);
  return next;
}

function applyMutation(state: SessionViewState, mutation: SessionMutation): SessionViewState {
  if (isLive(mutation)) {
    if (mutation.event_id < state.last_event_id) return state;
    const live = applyLive(state.live, state.messages, mutation);
    return live === state.live ? state : { ...state, live };
  }
  if (mutation.event_id <= state.last_event_id) return state;
  const advanced = { ...state, last_event_id: mutation.event_id };
  switch (mutation.variant) {
    case "message":
    case "part":
    case "delta": {
      const messages = applyDurableMessage(state.messages, mutation);
      const held = messages.get(mutation.message_id);
      return {
        ...advanced,
        messages,
        live: followDurable(state.live, mutation.message_id, mutation.revision, held),
      };
    }
    case "turn":
      return { ...advanced, turn: applyTurn(state.turn, mutation) };
    case "session": {
      const info = state.info ? applySessionInfo(state.info, mutation) : state.info;
      const security = state.security
        ? {
            approval_mode: mutation.approval_mode ?? state.security.approval_mode,
            effective_approval_mode:
              mutation.effective_approval_mode ?? state.security.effective_approval_mode,
            tool_allowances: mutation.tool_allowances ?? state.security.tool_allowances,
            effective_tool_allowances:
              mutation.effective_tool_allowances ?? state.security.effective_tool_allowances,
          }
        : state.security;
      const model = state.model
        ? {
            model_id: mutation.model_id ?? state.model.model_id,
            effective_model_id: mutation.effective_model_id ?? state.model.effective_model_id,
          }
        : state.model;
      return {
        ...advanced,
        ...(mutation.type === "queue" ? { queue_changes: state.queue_changes + 1 } : {}),
        ...(info ? { info } : {}),
        ...(security ? { security } : {}),
        ...(model ? { model } : {}),
      };
    }
  }
}

function applyDurableMessage(
  messages: ReadonlyMap<string, SessionMessage>,
  mutation: Extract<SessionMutation, { variant: "message" | "part" | "delta" }>,
): ReadonlyMap<string, SessionMessage> {
  const held = messages.get(mutation.message_id);
  switch (mutation.variant) {
    case "message":
      if (held && held.revision >= mutation.message.revision) return messages;
      return withEntry(messages, mutation.message_id, mutation.message);
    case "part": {
      if (held?.type !== "assistant" || mutation.revision < held.revision) return messages;
      const updated: AssistantMessage = {
        ...held,
        revision: Math.max(held.revision, mutation.revision),
        parts: upsertPart(held.parts, mutation.part),
      };
      return withEntry(messages, held.message_id, updated);
    }
    case "delta": {
      if (held?.type !== "assistant" || mutation.revision <= held.revision) return messages;
      const parts = held.parts.map((part) =>
        part.part_id === mutation.part_id && (part.type === "text" || part.type === "reasoning")
          ? { ...part, text: part.text + mutation.delta }
          : part,
      );
      return withEntry(messages, held.message_id, { ...held, revision: mutation.revision, parts });
    }
  }
}

function applyTurn(turn: TurnView, mutation: Extract<SessionMutation, { variant: "turn" }>): TurnView {
  const others = turn.running_turn_ids.filter((turn_id) => turn_id !== mutation.turn_id);
  if (mutation.type === "start") {
    return { running_turn_ids: [...others, mutation.turn_id], running_unnamed: turn.running_unnamed };
  }
  return { running_turn_ids: others, running_unnamed: false };
}

function applySessionInfo(info: SessionInfo, mutation: Extract<SessionMutation, { variant: "session" }>) {
  return {
    ...info,
    ...(mutation.title !== undefined ? { title: mutation.title } : {}),
    ...(mutation.approval_mode ? { approval_mode: mutation.approval_mode } : {}),
    ...(mutation.effective_approval_mode
      ? { effective_approval_mode: mutation.effective_approval_mode }
      : {}),
    ...(mutation.tool_allowances ? { tool_allowances: mutation.tool_allowances } : {}),
    ...(mutation.effective_tool_allowances
      ? { effective_tool_allowances: mutation.effective_tool_allowances }
      : {}),
    ...(mutation.model_id ? { model_id: mutation.model_id } : {}),
    ...(mutation.effective_model_id ? { effective_model_id: mutation.effective_model_id } : {}),
    ...(mutation.closed_at !== undefined ? { closed_at: mutation.closed_at, state: "closed" as const } : {}),
  };
}

function withEntry<V>(map: ReadonlyMap<string, V>, key: string, value: V): Map<string, V> {
  const next = new Map(map);
  next.set(key, value);
  return next;
}

/**
 * Messages as shown (durable, or their live copy) in timeline order (`sequence`), assistant parts in
 * generation order (`sequence`).
 */
export function orderedMessages(state: SessionViewState): SessionMessage[] {
  return [...withLive(state.messages, state.live).values()]
    .sort((a, b) => a.sequence - b.sequence)
    .map((message) =>
      message.type === "assistant"
        ? { ...message, parts: [...message.parts].sort((a, b) => a.sequence - b.sequence) }
        : message,
    );
}

/** An Interaction together with the tool call that owns it. */
export interface InteractionEntry {
  readonly interaction: Interaction;
  readonly tool: ToolPart;
  readonly message_id: string;
}

/** Every Interaction held in the session's tool parts, in timeline order. */
export function interactionEntries(state: SessionViewState): InteractionEntry[] {
  const entries: InteractionEntry[] = [];
  for (const message of orderedMessages(state)) {
    if (message.type !== "assistant") continue;
    for (const part of message.parts) {
      if (part.type !== "tool") continue;
      for (const interaction of part.interactions ?? []) {
        entries.push({ interaction, tool: part, message_id: message.message_id });
      }
    }
  }
  return entries;
}

export function pendingInteractionCount(state: SessionViewState): number {
  return interactionEntries(state).filter((entry) => entry.interaction.status === "pending").length;
}

/** True while the configured approval mode waits for the next Step checkpoint to take effect. */
export function isModeChangePending(state: SessionViewState): boolean {
  return (
    state.security !== undefined && state.security.approval_mode !== state.security.effective_approval_mode
  );
}
