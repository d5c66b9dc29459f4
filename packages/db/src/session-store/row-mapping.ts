import type {
  ApprovalMode,
  Interaction,
  InteractionEvent,
  InteractionEventKind,
  InteractionRecord,
  SessionEvent,
  SessionMessage,
  SessionMutation,
  SessionRecord,
} from "@parley/session-core";

// Rows as `$queryRaw` returns them (BIGINT → bigint, JSONB → parsed value) and their domain shapes.

export interface SessionRow {
  session_id: string;
  owner_id: string;
  agent_id: string;
  title: string;
  workspace_id: string | null;
  created_at: bigint;
  updated_at: bigint;
  closed_at: bigint | null;
  approval_mode: string;
  effective_approval_mode: string;
  model_id: string | null;
  effective_model_id: string | null;
}

export function toSessionRecord(row: SessionRow): SessionRecord {
  return {
    session_id: row.session_id,
    owner_id: row.owner_id,
    agent_id: row.agent_id,
    title: row.title,
    workspace_id: row.workspace_id,
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
    closed_at: row.closed_at === null ? null : Number(row.closed_at),
    approval_mode: row.approval_mode as ApprovalMode,
    effective_approval_mode: row.effective_approval_mode as ApprovalMode,
    model_id: row.model_id,
    effective_model_id: row.effective_model_id,
  };
}

export interface MessageRow {
  snapshot: unknown;
}

export function toMessage(row: MessageRow): SessionMessage {
  return row.snapshot as SessionMessage;
}

export interface InteractionRow {
  session_id: string;
  interaction_id: string;
  message_id: string;
  tool_call_id: string;
  tool_name: string;
  ordinal: number;
  type: string;
  status: string;
  request: unknown;
  response: unknown;
  cancel_reason: string | null;
  responded_by: string | null;
  resolved_at: bigint | null;
  resumed_at: bigint | null;
}

/** The columns `toInteractionRecord` needs, for SELECT lists. */
export const INTERACTION_COLUMNS = `i.session_id, i.interaction_id, i.message_id, i.tool_call_id, i.tool_name,
  i.ordinal, i.type, i.status, i.request, i.response, i.cancel_reason, i.responded_by, i.resolved_at, i.resumed_at`;

/** Rebuilds the Interaction from its columns; optional fields exist only when set, as in the part. */
export function toInteractionRecord(row: InteractionRow): InteractionRecord {
  const interaction: Interaction = {
    interaction_id: row.interaction_id,
    interaction_type: row.type,
    status: row.status as Interaction["status"],
    request: row.request as Interaction["request"],
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

export interface SessionEventRow {
  session_id: string;
  event_id: number;
  mutation: unknown;
}

export function toSessionEvent(row: SessionEventRow): SessionEvent {
  return { session_id: row.session_id, event_id: row.event_id, mutation: row.mutation as SessionMutation };
}

export interface InteractionEventRow {
  event_id: bigint;
  kind: string;
  session_id: string;
  interaction: unknown;
}

export function toInteractionEvent(row: InteractionEventRow): InteractionEvent {
  return {
    event_id: Number(row.event_id),
    kind: row.kind as InteractionEventKind,
    session_id: row.session_id,
    interaction: row.interaction as Interaction,
  };
}

/** A deep copy with exactly what a JSONB column keeps (no `undefined` keys). */
export function asStoredJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
