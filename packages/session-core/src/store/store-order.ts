import { z } from "zod";
import type { InteractionRecord } from "../ports/session-store.js";
import type { SessionMessage } from "../schema/messages.js";
import type { TurnRecord } from "../schema/turn.js";

// The orders of the `SessionStore` port, written once. The in-memory store sorts with these
// comparators; the Postgres store's ORDER BY clauses and cursor conditions state the same orders in
// SQL, and the conformance suite holds both to them. String ties compare by code unit, as
// `COLLATE "C"` does in Postgres. The orders without a position type here:
// - messages and session events: ascending by `sequence` / `event_id` within their session;
// - `listOpenAssistantMessages()` over all sessions: by `session_id`, then `sequence`;
// - queued commands: in commit order.

/** Code-unit order, as `COLLATE "C"` in Postgres. */
function compareStrings(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Where a session sits in `listSessions` order; a sessions page cursor carries its last item's. */
export const sessionPositionSchema = z.strictObject({
  created_at: z.number(),
  session_id: z.string(),
});
export type SessionPosition = z.infer<typeof sessionPositionSchema>;

export function sessionPosition(record: SessionPosition): SessionPosition {
  return { created_at: record.created_at, session_id: record.session_id };
}

/** `listSessions`: newest first, `created_at` descending, then `session_id` descending. */
export function compareSessionsNewestFirst(left: SessionPosition, right: SessionPosition): number {
  return right.created_at - left.created_at || compareStrings(right.session_id, left.session_id);
}

/**
 * Where an interaction sits in `queryInteractions` order (the admin inbox): pending ones first,
 * oldest first (`request.created_at`, then `interaction_id` ascending); then the others newest
 * answered first (`resolved_at`, or `request.created_at` when never answered, descending, then
 * `interaction_id` descending). An interactions page cursor carries its last item's.
 */
export const interactionPositionSchema = z.strictObject({
  pending: z.boolean(),
  at: z.number(),
  interaction_id: z.string(),
});
export type InteractionPosition = z.infer<typeof interactionPositionSchema>;

export function interactionPosition(record: InteractionRecord): InteractionPosition {
  const { interaction } = record;
  const pending = interaction.status === "pending";
  return {
    pending,
    at: pending
      ? interaction.request.created_at
      : (interaction.resolved_at ?? interaction.request.created_at),
    interaction_id: interaction.interaction_id,
  };
}

export function compareInteractionPositions(left: InteractionPosition, right: InteractionPosition): number {
  if (left.pending !== right.pending) return left.pending ? -1 : 1;
  const direction = left.pending ? 1 : -1;
  return direction * (left.at - right.at || compareStrings(left.interaction_id, right.interaction_id));
}

/**
 * Where a pending interaction sits in `listPendingInteractions` order (occurrence order in the
 * session): its message's `sequence`, its tool part's `sequence`, then its `ordinal`.
 */
export interface PendingInteractionPosition {
  message_sequence: number;
  part_sequence: number;
  ordinal: number;
}

/** The position of `record`, whose tool part is in `message` (unknown parts sort last). */
export function pendingInteractionPosition(
  record: InteractionRecord,
  message: SessionMessage | undefined,
): PendingInteractionPosition {
  const part =
    message?.type === "assistant"
      ? message.parts.find(
          (candidate) => candidate.type === "tool" && candidate.tool_call_id === record.tool_call_id,
        )
      : undefined;
  return {
    message_sequence: message?.sequence ?? Number.MAX_SAFE_INTEGER,
    part_sequence: part?.sequence ?? Number.MAX_SAFE_INTEGER,
    ordinal: record.ordinal,
  };
}

export function comparePendingInteractions(
  left: PendingInteractionPosition,
  right: PendingInteractionPosition,
): number {
  return (
    left.message_sequence - right.message_sequence ||
    left.part_sequence - right.part_sequence ||
    left.ordinal - right.ordinal
  );
}

/** `listTurnsNeedingDriver`: least recently updated first, then `session_id`, then `turn_id`. */
export function compareTurnsNeedingDriver(left: TurnRecord, right: TurnRecord): number {
  return (
    left.updated_at - right.updated_at ||
    compareStrings(left.session_id, right.session_id) ||
    compareStrings(left.turn_id, right.turn_id)
  );
}
