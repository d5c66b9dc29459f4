import { Prisma } from "@prisma/client";

/**
 * An `interactions` row (aliased `alias`) as the Interaction (as `toInteractionRecord` builds it):
 * optional fields only when set. `response` may hold JSON `null` when unset.
 */
export function interactionJson(alias: string): Prisma.Sql {
  const i = Prisma.raw(alias);
  return Prisma.sql`jsonb_strip_nulls(jsonb_build_object(
        'interaction_id', ${i}.interaction_id, 'interaction_type', ${i}.type, 'status', ${i}.status,
        'resolved_at', ${i}.resolved_at, 'cancel_reason', ${i}.cancel_reason,
        'responded_by', ${i}.responded_by, 'resumed_at', ${i}.resumed_at))
      || jsonb_build_object('request', ${i}.request)
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
