import type { InteractionRecord, SessionCommit } from "../ports/session-store.js";
import type { Interaction, InteractionStatus } from "../schema/interaction.js";
import type { JsonValue } from "../schema/json.js";
import type { AssistantMessage, SessionMessage, UserMessage } from "../schema/messages.js";
import type { UnsequencedMutation } from "../schema/mutation.js";
import type { AssistantPart, TextPart, ToolPart } from "../schema/parts.js";
import type { SessionRecord } from "../schema/session.js";

/** A fixed epoch-ms base, so fixtures read as offsets ("T0 + 5") and survive a bigint column. */
export const T0 = 1_764_000_000_000;

export function buildSessionRecord(
  overrides: Partial<SessionRecord> & { session_id: string },
): SessionRecord {
  return {
    owner_id: "user:owner",
    agent_id: "agent:default",
    title: `Session ${overrides.session_id}`,
    workspace_id: null,
    created_at: T0,
    updated_at: T0,
    closed_at: null,
    approval_mode: "ask",
    effective_approval_mode: "ask",
    tool_allowances: [],
    effective_tool_allowances: [],
    model_id: null,
    effective_model_id: null,
    ...overrides,
  };
}

export function buildUserMessage(
  input: Pick<UserMessage, "session_id" | "message_id" | "sequence"> &
    Partial<UserMessage> & { text?: string },
): UserMessage {
  const { text = `prompt ${input.sequence}`, ...rest } = input;
  return {
    type: "user",
    input_type: "prompt",
    revision: 1,
    created_at: T0 + input.sequence,
    updated_at: T0 + input.sequence,
    parts: [{ part_id: `${input.message_id}:text`, type: "text", text, state: "done" }],
    ...rest,
  };
}

export function buildAssistantMessage(
  input: Pick<AssistantMessage, "session_id" | "message_id" | "sequence"> & Partial<AssistantMessage>,
): AssistantMessage {
  return {
    type: "assistant",
    turn_id: "turn:1",
    segment_index: 1,
    status: "streaming",
    model_stream: "streaming",
    revision: 1,
    created_at: T0 + input.sequence,
    updated_at: T0 + input.sequence,
    parts: [],
    ...input,
  };
}

export function buildTextPart(input: Pick<TextPart, "sequence" | "text"> & Partial<TextPart>): TextPart {
  return { part_id: `text:${input.sequence}`, type: "text", state: "done", ...input };
}

export function buildToolPart(
  input: Pick<ToolPart, "sequence" | "tool_call_id"> & Partial<ToolPart>,
): ToolPart {
  return {
    part_id: `tool:${input.tool_call_id}`,
    type: "tool",
    tool_name: "delete_file",
    state: "ready",
    input: { path: "notes.txt" },
    ...input,
  };
}

export function buildInteraction(input: {
  interaction_id: string;
  tool_call_id: string;
  status?: InteractionStatus;
  type?: string;
  tool_name?: string;
  turn_id?: string;
  created_at?: number;
  resolved_at?: number;
  payload?: JsonValue;
}): Interaction {
  const status = input.status ?? "pending";
  const type = input.type ?? "approval";
  const interaction: Interaction = {
    interaction_id: input.interaction_id,
    interaction_type: type,
    status,
    request: {
      interaction_id: input.interaction_id,
      turn_id: input.turn_id ?? "turn:1",
      type,
      source: { type: "tool", tool_call_id: input.tool_call_id, tool_name: input.tool_name ?? "delete_file" },
      payload: input.payload ?? { operation: "tool", validated_input: { path: "notes.txt" } },
      created_at: input.created_at ?? T0,
    },
  };
  if (status === "resolved" || status === "denied") {
    interaction.response = {
      type,
      outcome: status,
      payload: type === "approval" ? { decision: status === "resolved" ? "approved" : "denied" } : {},
    };
    interaction.responded_by = "user:owner";
  }
  if (status === "cancelled") interaction.cancel_reason = "turn_stopped";
  if (status !== "pending") interaction.resolved_at = input.resolved_at ?? (input.created_at ?? T0) + 1000;
  return interaction;
}

/** The index row of every interaction embedded in `message`'s tool parts. */
export function interactionRecordsOf(message: AssistantMessage): InteractionRecord[] {
  return message.parts.flatMap((part) =>
    part.type === "tool"
      ? (part.interactions ?? []).map((interaction, ordinal) => ({
          session_id: message.session_id,
          message_id: message.message_id,
          tool_call_id: part.tool_call_id,
          tool_name: part.tool_name,
          ordinal,
          interaction,
        }))
      : [],
  );
}

/** The `message` mutation announcing `message`'s current snapshot. */
export function messageMutationOf(
  message: SessionMessage,
  created_at = message.updated_at,
): UnsequencedMutation {
  return {
    variant: "message",
    session_id: message.session_id,
    created_at,
    type: message.type,
    message_id: message.message_id,
    ...(message.turn_id === undefined ? {} : { turn_id: message.turn_id }),
    sequence: message.sequence,
    revision: message.revision,
    message,
  };
}

/** A Turn's `start` mutation (what a commit can log before the Turn's first user message). */
export function turnStartMutation(session_id: string, turn_id: string): UnsequencedMutation {
  return { variant: "turn", session_id, created_at: T0, turn_id, type: "start", status: "running" };
}

/** `mutation` as the store hands it back once it is event `event_id` (the stores' own rule). */
export { sequencedMutation as sequenced } from "../schema/mutation.js";

/** The `part` mutation announcing one part of an assistant message at its current revision. */
export function partMutationOf(message: AssistantMessage, part: AssistantPart): UnsequencedMutation {
  return {
    variant: "part",
    session_id: message.session_id,
    created_at: message.updated_at,
    type: part.type,
    message_id: message.message_id,
    ...(message.turn_id === undefined ? {} : { turn_id: message.turn_id }),
    revision: message.revision,
    part_id: part.part_id,
    part,
  };
}

/**
 * A complete commit of a message revision: the snapshot, its interaction rows and its `message`
 * mutation (the shape the runtime writes).
 */
export function messageCommitOf(message: SessionMessage, extra: Partial<SessionCommit> = {}): SessionCommit {
  return {
    session_id: message.session_id,
    message: { snapshot: message, expected_revision: message.revision - 1 },
    ...(message.type === "assistant" ? { interactions: interactionRecordsOf(message) } : {}),
    mutation: messageMutationOf(message),
    ...extra,
  };
}
