import type { SessionRecord } from "@parley/session-core";
import type {
  InteractionEvent as InteractionEventModel,
  InteractionRow as InteractionModel,
  Message as MessageModel,
  Session,
  SessionCommand as SessionCommandModel,
  SessionEvent as SessionEventModel,
} from "@prisma/client";
import {
  bigintColumn,
  intColumn,
  jsonbColumn,
  type ModelColumns,
  nullableBigintColumn,
  nullableJsonbColumn,
  nullableTextColumn,
  pickColumns,
  textColumn,
} from "./table-columns.js";

// One descriptor per table of the session store (see `table-columns.ts`): a new column is added to
// `prisma/schema.prisma`, its migration and here; the SQL and row types follow.

/**
 * `sessions`: the columns of a `SessionRecord` (one per field, the compiler checks both ways). The
 * store's own columns (`last_event_id`, `lease_epoch`, `active_turn_id`) are written by its statements.
 */
export const SESSION_COLUMNS = {
  session_id: textColumn,
  owner_id: textColumn,
  agent_id: textColumn,
  title: textColumn,
  workspace_id: nullableTextColumn,
  created_at: bigintColumn,
  updated_at: bigintColumn,
  closed_at: nullableBigintColumn,
  approval_mode: textColumn,
  effective_approval_mode: textColumn,
  tool_allowances: jsonbColumn,
  effective_tool_allowances: jsonbColumn,
  model_id: nullableTextColumn,
  effective_model_id: nullableTextColumn,
} as const satisfies ModelColumns<Session> & { readonly [Field in keyof SessionRecord]: unknown };

/**
 * `messages`: a message's header in columns of its own (`status` only for assistant and action
 * messages, `turn_id` when set), and its `snapshot`, the rest of it (`storedMessage`: without the
 * header, and an assistant message without its parts, which are `message_parts` rows).
 */
export const MESSAGE_COLUMNS = {
  session_id: textColumn,
  message_id: textColumn,
  sequence: intColumn,
  revision: intColumn,
  type: textColumn,
  status: nullableTextColumn,
  turn_id: nullableTextColumn,
  created_at: bigintColumn,
  updated_at: bigintColumn,
  snapshot: jsonbColumn,
} as const satisfies ModelColumns<MessageModel> & { readonly [Name in keyof MessageModel]: unknown };

/**
 * `interactions`, as a commit writes them: every column but `inbox_at`, which the statement derives
 * (`resolved_at`, else `created_at`). `message_sequence` / `part_sequence` may be null in a written
 * row: the statement then reads them from the stored message.
 */
export const INTERACTION_WRITTEN_COLUMNS = {
  session_id: textColumn,
  interaction_id: textColumn,
  message_id: textColumn,
  message_sequence: intColumn,
  part_sequence: intColumn,
  tool_call_id: textColumn,
  tool_name: textColumn,
  ordinal: intColumn,
  type: textColumn,
  status: textColumn,
  turn_id: textColumn,
  request: jsonbColumn,
  response: nullableJsonbColumn,
  cancel_reason: nullableTextColumn,
  responded_by: nullableTextColumn,
  created_at: bigintColumn,
  resolved_at: nullableBigintColumn,
  resumed_at: nullableBigintColumn,
} as const satisfies ModelColumns<InteractionModel>;

/** `interactions`: every column of the table (the compiler checks it against the Prisma model). */
export const INTERACTION_COLUMNS = {
  ...INTERACTION_WRITTEN_COLUMNS,
  inbox_at: bigintColumn,
} as const satisfies ModelColumns<InteractionModel> & { readonly [Name in keyof InteractionModel]: unknown };

/** The columns an `InteractionRecord` is rebuilt from (`toInteractionRecord`). */
export const INTERACTION_RECORD_COLUMNS = pickColumns(INTERACTION_COLUMNS, [
  "session_id",
  "interaction_id",
  "message_id",
  "tool_call_id",
  "tool_name",
  "ordinal",
  "type",
  "status",
  "turn_id",
  "request",
  "response",
  "created_at",
  "cancel_reason",
  "responded_by",
  "resolved_at",
  "resumed_at",
]);

/**
 * An Interaction's record columns read beside its session's row (`getAnswerContext`), which gives
 * `session_id`; `created_at`, which the session's row has too, is read under another name.
 */
export const ANSWERED_INTERACTION_COLUMNS = pickColumns(
  INTERACTION_RECORD_COLUMNS,
  (Object.keys(INTERACTION_RECORD_COLUMNS) as (keyof typeof INTERACTION_RECORD_COLUMNS)[]).filter(
    (name) => name !== "session_id" && name !== "created_at",
  ),
);

/** `session_commands`, as a command is read and inserted (`position` and `settled_at` are the store's). */
export const SESSION_COMMAND_COLUMNS = {
  session_id: textColumn,
  command_id: textColumn,
  kind: textColumn,
  input: jsonbColumn,
  request_id: nullableTextColumn,
  turn_id: nullableTextColumn,
  status: textColumn,
  result: nullableJsonbColumn,
  created_at: bigintColumn,
} as const satisfies ModelColumns<SessionCommandModel>;

/** `session_events`, as the replay log is read (the statement of a commit writes its rows). */
export const SESSION_EVENT_COLUMNS = {
  session_id: textColumn,
  event_id: intColumn,
  mutation: jsonbColumn,
} as const satisfies ModelColumns<SessionEventModel>;

/** `interaction_events`, as the admin feed is read. */
export const INTERACTION_EVENT_COLUMNS = {
  event_id: bigintColumn,
  kind: textColumn,
  session_id: textColumn,
  interaction: jsonbColumn,
} as const satisfies ModelColumns<InteractionEventModel>;
