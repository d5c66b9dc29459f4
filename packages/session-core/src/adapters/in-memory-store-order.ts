import type { InteractionRecord } from "../ports/session-store.js";

// Orders and opaque page cursors of `InMemorySessionStore`; the conformance suite fixes the same orders.
// `interactionPosition` is the inbox order for both stores (the Postgres store imports it).

/** Code-unit order, as `COLLATE "C"` in Postgres. */
function compareStrings(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

export interface SessionPosition {
  created_at: number;
  session_id: string;
}

/** Newest first: `created_at` descending, then `session_id` descending. */
export function compareSessionsNewestFirst(left: SessionPosition, right: SessionPosition): number {
  return right.created_at - left.created_at || compareStrings(right.session_id, left.session_id);
}

/**
 * Where an interaction sits in `queryInteractions` order: pending ones first, oldest first
 * (`request.created_at`, then `interaction_id` ascending); then the others newest answered first
 * (`resolved_at`, or `request.created_at` when never answered, descending, then `interaction_id`
 * descending). The cursor is the position of a page's last item.
 */
export interface InteractionPosition {
  pending: boolean;
  at: number;
  interaction_id: string;
}

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

export function encodeCursor(position: SessionPosition | InteractionPosition): string {
  const bytes = new TextEncoder().encode(JSON.stringify(position));
  return btoa(String.fromCharCode(...bytes));
}

export function decodeCursor<Position>(
  cursor: string,
  isPosition: (value: unknown) => value is Position,
): Position {
  let value: unknown;
  try {
    const bytes = Uint8Array.from(atob(cursor), (character) => character.charCodeAt(0));
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    value = undefined;
  }
  if (!isPosition(value)) throw new Error(`Invalid page cursor: ${cursor}`);
  return value;
}

export function isSessionPosition(value: unknown): value is SessionPosition {
  const candidate = value as Partial<SessionPosition> | null;
  return typeof candidate?.created_at === "number" && typeof candidate.session_id === "string";
}

export function isInteractionPosition(value: unknown): value is InteractionPosition {
  const candidate = value as Partial<InteractionPosition> | null;
  return (
    typeof candidate?.pending === "boolean" &&
    typeof candidate.at === "number" &&
    typeof candidate.interaction_id === "string"
  );
}

export function compareNumberTuples(left: readonly number[], right: readonly number[]): number {
  for (let index = 0; index < left.length; index += 1) {
    const order = (left[index] ?? 0) - (right[index] ?? 0);
    if (order !== 0) return order;
  }
  return 0;
}
