import { isDeepStrictEqual } from "node:util";
import { type InteractionRequest, SESSION_APPROVAL_RESPONSE_SCHEMA } from "@parley/session-core";
import { Prisma } from "@prisma/client";

/** The request's fields that `interactions` keeps in columns of their own: its `request` leaves them out. */
const REQUEST_COLUMN_FIELDS = ["interaction_id", "turn_id", "type", "created_at"] as const;

/**
 * What a stored request's `response_schema` holds in place of `SESSION_APPROVAL_RESPONSE_SCHEMA`,
 * the schema of every approval, which each approval's row would hold twice (asked, answered): a
 * string, which no stored schema is (the runtime accepts only schema objects, response-schema-subset;
 * a request without one has no `response_schema`), so reading it back is unambiguous.
 */
const APPROVAL_SCHEMA_MARKER = "session-approval";
const APPROVAL_SCHEMA_JSON = JSON.stringify(SESSION_APPROVAL_RESPONSE_SCHEMA);
/** The same, as the text of an SQL string literal. */
const APPROVAL_SCHEMA_SQL_TEXT = APPROVAL_SCHEMA_JSON.replaceAll("'", "''");

/**
 * An Interaction's request as its row's `request` holds it: without what the row's columns hold
 * (`interaction_id`, `turn_id`, `type`, `created_at`), and with the approval schema as a marker
 * (`APPROVAL_SCHEMA_MARKER`); `requestOf` and `interactionJson` put them back. The row is written
 * when the Interaction is asked and again when it is answered, each time whole.
 */
export function storedRequest(request: InteractionRequest): object {
  const stored = Object.fromEntries(
    Object.entries(request).filter(
      ([field]) => !(REQUEST_COLUMN_FIELDS as readonly string[]).includes(field),
    ),
  );
  if (isDeepStrictEqual(request.response_schema, SESSION_APPROVAL_RESPONSE_SCHEMA)) {
    stored.response_schema = APPROVAL_SCHEMA_MARKER;
  }
  return stored;
}

/** The request from an `interactions` row's columns and stored `request` (rows written before hold them all). */
export function requestOf(row: {
  interaction_id: string;
  turn_id: string;
  type: string;
  created_at: bigint;
  request: unknown;
}): InteractionRequest {
  const stored = row.request as InteractionRequest;
  return {
    ...stored,
    ...(stored.response_schema === APPROVAL_SCHEMA_MARKER
      ? { response_schema: JSON.parse(APPROVAL_SCHEMA_JSON) }
      : {}),
    interaction_id: row.interaction_id,
    turn_id: row.turn_id,
    type: row.type,
    created_at: Number(row.created_at),
  };
}

/**
 * An `interactions` row (aliased `alias`) as the Interaction (as `toInteractionRecord` builds it):
 * optional fields only when set, the request with its fields from the columns (`requestOf`).
 * `response` may hold JSON `null` when unset.
 */
export function interactionJson(alias: string): Prisma.Sql {
  const i = Prisma.raw(alias);
  // Each field the request leaves out has the column of the same name.
  const requestColumns = Prisma.raw(
    REQUEST_COLUMN_FIELDS.map((field) => `'${field}', ${alias}.${field}`).join(", "),
  );
  const approvalSchema = Prisma.raw(
    `CASE WHEN ${alias}.request->'response_schema' = '${JSON.stringify(APPROVAL_SCHEMA_MARKER)}'::jsonb
          THEN jsonb_build_object('response_schema', '${APPROVAL_SCHEMA_SQL_TEXT}'::jsonb)
          ELSE '{}'::jsonb END`,
  );
  return Prisma.sql`jsonb_strip_nulls(jsonb_build_object(
        'interaction_id', ${i}.interaction_id, 'interaction_type', ${i}.type, 'status', ${i}.status,
        'resolved_at', ${i}.resolved_at, 'cancel_reason', ${i}.cancel_reason,
        'responded_by', ${i}.responded_by, 'resumed_at', ${i}.resumed_at))
      || jsonb_build_object('request', ${i}.request || ${approvalSchema} || jsonb_build_object(${requestColumns}))
      || CASE WHEN ${i}.response IS NULL OR jsonb_typeof(${i}.response) = 'null' THEN '{}'::jsonb
              ELSE jsonb_build_object('response', ${i}.response) END`;
}

/**
 * An `interaction_events` row's Interaction (the row aliased `alias`): its own copy when it has one,
 * else its `interactions` row as stored now. The feed references the row (parts as rows, decision
 * 0009): a replayed entry carries the Interaction's newest durable state, with its own `kind`.
 */
export function feedInteraction(alias: string): Prisma.Sql {
  const e = Prisma.raw(alias);
  return Prisma.sql`COALESCE(${e}.interaction,
      (SELECT ${interactionJson("i")} FROM interactions i
        WHERE i.session_id = ${e}.session_id AND i.interaction_id = ${e}.interaction_id))`;
}

/** `feedInteraction` of an `interaction_events` row aliased `e`, as SQL text (the bus reads with `pg`). */
export const FEED_INTERACTION = feedInteraction("e").sql;
