import type { InteractionEventKind } from "../../ports/session-store.js";
import type { AssistantMessage } from "../../schema/messages.js";
import type { AssistantPart, ToolPart } from "../../schema/parts.js";

/**
 * Which one mutation a revision publishes (one revision, at most one mutation:
 * docs/behaviour.md#durability).
 */
export type MutationSpec =
  | { variant: "message" }
  | { variant: "part"; part_id: string }
  | { variant: "delta"; part_id: string; type: "text" | "reasoning"; delta: string };

/** An Interaction this revision changed, by position; the writer derives index rows and feed events. */
export interface InteractionChange {
  tool_call_id: string;
  ordinal: number;
  kind: InteractionEventKind;
}

/**
 * The result of a pure transition `(current assistant message) → next`. As a checkpoint the writer
 * stamps `revision` and `updated_at`, commits, then publishes one mutation for the message
 * (`checkpointSpec`); as a live change it publishes `mutation` with `live: true` (DESIGN §10.6).
 * `value` is what the caller gets.
 */
export interface AssistantTransition<T = undefined> {
  message: AssistantMessage;
  mutation: MutationSpec;
  interaction_changes?: InteractionChange[];
  /**
   * false: the revision is bookkeeping readers need not see (e.g. `resumed_at`). It is committed
   * without `mutation` (no event id, nothing published) and without admin-feed entries; the changed
   * Interactions' index rows are still upserted so they match the tool part.
   */
  publish?: false;
  /**
   * true: a change readers do not need on its own (e.g. the model stream's end, which only recovery
   * reads from the stored message). Applied live it publishes nothing; the next checkpoint commits it
   * with the rest of the message (a checkpoint of it alone publishes its `mutation`).
   */
  rides_along?: true;
  value?: T;
}

/** A transition that may decide nothing needs to change (`null`: no commit, no mutation). */
export type AssistantTransitionFn<T = undefined> = (
  current: AssistantMessage,
  now: number,
) => AssistantTransition<T> | null;

export function isTerminalToolState(state: ToolPart["state"]): boolean {
  return state === "completed" || state === "failed";
}

export function findToolIndex(message: AssistantMessage, tool_call_id: string): number {
  return message.parts.findIndex((part) => part.type === "tool" && part.tool_call_id === tool_call_id);
}

export function findPartIndex(message: AssistantMessage, part_id: string): number {
  return message.parts.findIndex((part) => part.part_id === part_id);
}

export function nextPartSequence(message: AssistantMessage): number {
  return message.parts.reduce((max, part) => Math.max(max, part.sequence), 0) + 1;
}

export function replacePart(message: AssistantMessage, index: number, part: AssistantPart): AssistantMessage {
  const parts = message.parts.slice();
  parts[index] = part;
  return { ...message, parts };
}

export function appendPart(message: AssistantMessage, part: AssistantPart): AssistantMessage {
  return { ...message, parts: [...message.parts, part] };
}

/** Writes to a closed Assistant Message are refused (docs/behaviour.md#session). */
export function assertOpen(message: AssistantMessage): void {
  if (message.status !== "streaming") {
    throw new Error(`Assistant Message is already closed: ${message.message_id}`);
  }
}
