import { type InteractionPosition, ParleyError } from "@parley/session-core";

// Opaque page cursors: the sort key of a page's last item, as base64url JSON.

/** `listSessions` order: `created_at` descending, then `session_id` descending. */
export interface SessionPosition {
  created_at: number;
  session_id: string;
}

export function encodeCursor(position: SessionPosition | InteractionPosition): string {
  return Buffer.from(JSON.stringify(position), "utf8").toString("base64url");
}

function decode(cursor: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function invalidCursor(cursor: string): ParleyError {
  return new ParleyError("invalid_input", `Invalid page cursor: ${cursor}`);
}

export function decodeSessionCursor(cursor: string): SessionPosition {
  const value = decode(cursor);
  if (typeof value?.created_at !== "number" || typeof value.session_id !== "string") {
    throw invalidCursor(cursor);
  }
  return { created_at: value.created_at, session_id: value.session_id };
}

export function decodeInteractionCursor(cursor: string): InteractionPosition {
  const value = decode(cursor);
  if (
    typeof value?.pending !== "boolean" ||
    typeof value.at !== "number" ||
    typeof value.interaction_id !== "string"
  ) {
    throw invalidCursor(cursor);
  }
  return { pending: value.pending, at: value.at, interaction_id: value.interaction_id };
}
