import type { InteractionRequest } from "@parley/session-core";
import { Prisma } from "@prisma/client";

/** The request's fields that `interactions` keeps in columns of their own: its `request` leaves them out. */
const REQUEST_COLUMN_FIELDS = ["interaction_id", "turn_id", "type", "created_at"] as const;

/**
 * An Interaction's request as its row's `request` holds it: without what the row's columns hold
 * (`interaction_id`, `turn_id`, `type`, `created_at`); `requestOf` and `interactionJson` put them
 * back. The row is written when the Interaction is asked and again when it is answered.
 */
export function storedRequest(request: InteractionRequest): object {
  return Object.fromEntries(
    Object.entries(request).filter(
      ([field]) => !(REQUEST_COLUMN_FIELDS as readonly string[]).includes(field),
    ),
  );
}

/** The request from an `interactions` row's columns and stored `request` (rows written before hold them all). */
export function requestOf(row: {
  interaction_id: string;
  turn_id: string;
  type: string;
  created_at: bigint;
  request: unknown;
}): InteractionRequest {
  return {
    ...(row.request as InteractionRequest),
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
  return Prisma.sql`jsonb_strip_nulls(jsonb_build_object(
        'interaction_id', ${i}.interaction_id, 'interaction_type', ${i}.type, 'status', ${i}.status,
        'resolved_at', ${i}.resolved_at, 'cancel_reason', ${i}.cancel_reason,
        'responded_by', ${i}.responded_by, 'resumed_at', ${i}.resumed_at))
      || jsonb_build_object('request', ${i}.request || jsonb_build_object(${requestColumns}))
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
