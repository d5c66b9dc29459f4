import type { SessionCommit } from "@parley/session-core";
import { Prisma } from "@prisma/client";
import { loggedMutation, replayedMutation } from "./message-parts.js";

// The replay log (`session_events`) keeps one row per commit, not one per mutation (migration
// `20261207090000_session_log_rows`): a commit that logs two mutations (a Turn's `start` with its
// user message, an assistant message's close with the Turn's `finish`) writes one row, keyed by the
// id of its second mutation, that holds both as a JSON array; a commit of one mutation, the
// mutation itself. A row costs its tuple header, its key's index entry and the session id once
// more: a second row was a sixth of what a cycle's log wrote. The column is `json`, not `jsonb`: a
// row is written once and read whole (each entry is converted when it is replayed), and for these
// small documents json's text is smaller than jsonb's binary form.
//
// Readers see entries, never rows: `LOG_ENTRIES` expands a row `s` into entries `e` with the columns
// one row per mutation had (`session_id`, `event_id`, `mutation` as jsonb, `created_at`).

/** The most mutations one commit logs (`SessionCommit.mutation` and `preceding_mutation`). */
const MAX_ENTRIES_PER_ROW = 2;

/** The replay-log row a commit writes: its JSON text and `created_at` (its id is taken in SQL). */
export interface LogRow {
  json: string;
  created_at: number;
  /** Event ids it takes: the row's key is the last of them. */
  count: 1 | 2;
}

/**
 * The row for `commit`'s mutations (`loggedMutation`: references to what the revision stores), or
 * null when it logs none. The last entry's `created_at` is the row's column; the one before it
 * keeps its own in the JSON (a Turn's `start` is as old as its prompt).
 */
export function logRowOf(commit: SessionCommit): LogRow | null {
  const { mutation, preceding_mutation } = commit;
  if (!mutation) return null;
  const last = { ...loggedMutation(mutation, commit), created_at: undefined };
  if (!preceding_mutation) return { json: JSON.stringify(last), created_at: mutation.created_at, count: 1 };
  return {
    json: JSON.stringify([loggedMutation(preceding_mutation, commit), last]),
    created_at: mutation.created_at,
    count: 2,
  };
}

/**
 * FROM clause: each `session_events` row `s` expanded into its entries `e`, in order `ORDER BY
 * s.event_id, n.position`. A row's entries end at its key: the entry at `position` of `count` has
 * the id `s.event_id - count + position`. A query bounds the rows by key (`logEntriesBetween`) as well
 * as the entries, so that it reads the key's index range.
 */
export const LOG_ENTRIES = `session_events s
  CROSS JOIN LATERAL (SELECT CASE WHEN json_typeof(s.mutation) = 'array' THEN s.mutation::jsonb
                                  ELSE jsonb_build_array(s.mutation::jsonb) END AS entries) AS l
  CROSS JOIN LATERAL jsonb_array_elements(l.entries) WITH ORDINALITY AS n(value, position)
  CROSS JOIN LATERAL (SELECT s.session_id,
                             (s.event_id - jsonb_array_length(l.entries) + n.position)::int AS event_id,
                             n.value AS mutation,
                             COALESCE((n.value->>'created_at')::bigint, s.created_at) AS created_at) AS e`;

/** The order of `LOG_ENTRIES`: by row key, then position in the row (the entries' ids in order). */
const LOG_ENTRIES_ORDER = "ORDER BY s.event_id, n.position";

/**
 * The entries of session `session_id` with ids in (`after`, `up_to`], oldest first, at most `limit`:
 * `{ session_id, event_id, mutation }`, the mutation as replayed (`replayedMutation`). The bus reads
 * it with `pg` (`.text`, `.values`), the store through Prisma.
 */
export function logEntriesBetween(range: {
  session_id: string;
  after: number;
  up_to?: number;
  limit?: number;
}): Prisma.Sql {
  const { session_id, after, up_to, limit } = range;
  // A row holding the entry after `after` has a key above `after`; one holding the entry `up_to`, a
  // key at most `MAX_ENTRIES_PER_ROW - 1` above it.
  const upper =
    up_to === undefined
      ? Prisma.empty
      : Prisma.sql`AND s.event_id <= ${up_to + MAX_ENTRIES_PER_ROW - 1}::int AND e.event_id <= ${up_to}::int`;
  return Prisma.sql`
    SELECT e.session_id, e.event_id, ${replayedMutation("e")} AS mutation FROM ${Prisma.raw(LOG_ENTRIES)}
     WHERE s.session_id = ${session_id} AND s.event_id > ${after}::int AND e.event_id > ${after}::int ${upper}
     ${Prisma.raw(LOG_ENTRIES_ORDER)} ${limit === undefined ? Prisma.empty : Prisma.sql`LIMIT ${limit}::int`}`;
}
