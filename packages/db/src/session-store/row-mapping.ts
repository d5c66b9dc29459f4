import type {
  Interaction,
  InteractionEvent,
  InteractionEventKind,
  InteractionRecord,
  SessionEvent,
  SessionMessage,
  SessionMutation,
  SessionRecord,
} from "@parley/session-core";

import { requestOf } from "./interaction-json.js";
import { type RawRow, toDomainRow } from "./table-columns.js";
import {
  INTERACTION_EVENT_COLUMNS,
  type INTERACTION_RECORD_COLUMNS,
  SESSION_COLUMNS,
  type SESSION_EVENT_COLUMNS,
} from "./tables.js";

// Rows as `$queryRaw` returns them (BIGINT → bigint, JSONB → parsed value) and their domain shapes.

export type SessionRow = RawRow<typeof SESSION_COLUMNS>;

export function toSessionRecord(row: SessionRow): SessionRecord {
  // The text columns hold what `SessionRecord`'s schema allows: only the store writes them.
  return toDomainRow(SESSION_COLUMNS, row) as SessionRecord;
}

export interface MessageRow {
  snapshot: unknown;
}

export function toMessage(row: MessageRow): SessionMessage {
  return row.snapshot as SessionMessage;
}

export type InteractionRow = RawRow<typeof INTERACTION_RECORD_COLUMNS>;

/** Rebuilds the Interaction from its columns; optional fields exist only when set, as in the part. */
export function toInteractionRecord(row: InteractionRow): InteractionRecord {
  const interaction: Interaction = {
    interaction_id: row.interaction_id,
    interaction_type: row.type,
    status: row.status as Interaction["status"],
    request: requestOf(row),
  };
  if (row.response !== null) interaction.response = row.response as NonNullable<Interaction["response"]>;
  if (row.resolved_at !== null) interaction.resolved_at = Number(row.resolved_at);
  if (row.cancel_reason !== null) {
    interaction.cancel_reason = row.cancel_reason as NonNullable<Interaction["cancel_reason"]>;
  }
  if (row.responded_by !== null) interaction.responded_by = row.responded_by;
  if (row.resumed_at !== null) interaction.resumed_at = Number(row.resumed_at);
  return {
    session_id: row.session_id,
    message_id: row.message_id,
    tool_call_id: row.tool_call_id,
    tool_name: row.tool_name,
    ordinal: row.ordinal,
    interaction,
  };
}

export type SessionEventRow = RawRow<typeof SESSION_EVENT_COLUMNS>;

export function toSessionEvent(row: SessionEventRow): SessionEvent {
  return { session_id: row.session_id, event_id: row.event_id, mutation: row.mutation as SessionMutation };
}

export type InteractionEventRow = RawRow<typeof INTERACTION_EVENT_COLUMNS>;

export function toInteractionEvent(row: InteractionEventRow): InteractionEvent {
  const event = toDomainRow(INTERACTION_EVENT_COLUMNS, row);
  return {
    event_id: event.event_id,
    kind: event.kind as InteractionEventKind,
    session_id: event.session_id,
    interaction: event.interaction as Interaction,
  };
}
