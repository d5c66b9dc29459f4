import type { CancelReason } from "../../schema/interaction.js";
import type { AssistantMessage } from "../../schema/messages.js";
import type { AssistantPart } from "../../schema/parts.js";
import {
  type AssistantTransition,
  appendPart,
  assertOpen,
  findPartIndex,
  type InteractionChange,
  isTerminalToolState,
  nextPartSequence,
  replacePart,
} from "./transition.js";

export interface NewAssistantMessage {
  message_id: string;
  session_id: string;
  turn_id: string;
  sequence: number;
  segment_index: number;
  step_part_id: string;
  now: number;
}

/** A new segment opens with its Step's `step-start` part and an open model stream. */
export function createAssistantMessage(input: NewAssistantMessage): AssistantMessage {
  return {
    message_id: input.message_id,
    session_id: input.session_id,
    turn_id: input.turn_id,
    type: "assistant",
    sequence: input.sequence,
    revision: 1,
    created_at: input.now,
    updated_at: input.now,
    segment_index: input.segment_index,
    status: "streaming",
    model_stream: "streaming",
    parts: [{ part_id: input.step_part_id, sequence: 1, type: "step-start" }],
  };
}

/** A later Step of the same segment: a `step-start` part, and the model stream is open again. */
export function startStep(message: AssistantMessage, part_id: string): AssistantTransition {
  assertOpen(message);
  const next = appendPart(
    { ...message, model_stream: "streaming" },
    { part_id, sequence: nextPartSequence(message), type: "step-start" },
  );
  return { message: next, mutation: { variant: "part", part_id } };
}

export function addStreamingPart(
  message: AssistantMessage,
  part_id: string,
  type: "text" | "reasoning",
): AssistantTransition {
  assertOpen(message);
  const next = appendPart(message, {
    part_id,
    sequence: nextPartSequence(message),
    type,
    text: "",
    state: "streaming",
  });
  return { message: next, mutation: { variant: "part", part_id } };
}

/** A part the model sends whole (a `file` or a `source`): one `part` mutation. */
export function addFinishedPart(
  message: AssistantMessage,
  build: (sequence: number) => AssistantPart,
): AssistantTransition {
  assertOpen(message);
  const part = build(nextPartSequence(message));
  return { message: appendPart(message, part), mutation: { variant: "part", part_id: part.part_id } };
}

/** One fragment of streamed text: one live `delta` mutation (DESIGN §10.6). */
export function appendStreamedText(
  message: AssistantMessage,
  part_id: string,
  delta: string,
): AssistantTransition {
  assertOpen(message);
  const index = findPartIndex(message, part_id);
  const part = message.parts[index];
  if (!part || (part.type !== "text" && part.type !== "reasoning")) {
    throw new Error(`Streaming text part not found: ${part_id}`);
  }
  return {
    message: replacePart(message, index, { ...part, text: part.text + delta }),
    mutation: { variant: "delta", part_id, type: part.type, delta },
  };
}

export function finishStreamingPart(message: AssistantMessage, part_id: string): AssistantTransition | null {
  const index = findPartIndex(message, part_id);
  const part = message.parts[index];
  if (!part || (part.type !== "text" && part.type !== "reasoning") || part.state === "done") return null;
  assertOpen(message);
  return {
    message: replacePart(message, index, { ...part, state: "done" }),
    mutation: { variant: "part", part_id },
  };
}

/**
 * The Step's model stream ended; from here a crash no longer counts as a cut stream
 * (docs/behaviour.md#durability). Only recovery reads it, so it is applied live unpublished and the
 * Step's next checkpoint commits it.
 */
export function finishModelStream(message: AssistantMessage): AssistantTransition | null {
  if (message.model_stream === "finished") return null;
  assertOpen(message);
  return {
    message: { ...message, model_stream: "finished" },
    mutation: { variant: "message" },
    rides_along: true,
  };
}

export interface CloseAssistantInput {
  status: "completed" | "stopped" | "failed";
  /** The error given to tools that are still not terminal. */
  tool_error: string;
  /** Why pending Interactions are cancelled, should any still be pending. */
  cancel_reason: CancelReason;
  now: number;
}

/**
 * Closing sets `status`, finishes every text/reasoning part, cancels any Interaction still pending
 * and fails every tool that is not terminal, all in one revision published as one `message` mutation.
 */
export function closeAssistantMessage(
  message: AssistantMessage,
  input: CloseAssistantInput,
): AssistantTransition {
  assertOpen(message);
  const interaction_changes: InteractionChange[] = [];
  const parts = message.parts.map((part): AssistantPart => {
    if (part.type === "text" || part.type === "reasoning")
      return part.state === "done" ? part : { ...part, state: "done" };
    if (part.type !== "tool") return part;
    const interactions = part.interactions?.map((interaction, ordinal) => {
      if (interaction.status !== "pending") return interaction;
      interaction_changes.push({ tool_call_id: part.tool_call_id, ordinal, kind: "cancelled" });
      return {
        ...interaction,
        status: "cancelled" as const,
        cancel_reason: input.cancel_reason,
        resolved_at: input.now,
      };
    });
    const withInteractions = interactions ? { ...part, interactions } : part;
    if (isTerminalToolState(part.state)) return withInteractions;
    return { ...withInteractions, state: "failed", error: input.tool_error };
  });
  return {
    message: { ...message, parts, status: input.status, model_stream: "finished" },
    mutation: { variant: "message" },
    interaction_changes,
  };
}

/** The text the model answered in the message's last Step (what `TurnResult.text` reports). */
export function lastStepText(message: AssistantMessage): string {
  let text = "";
  for (const part of message.parts) {
    if (part.type === "step-start") text = "";
    else if (part.type === "text") text += part.text;
  }
  return text;
}
