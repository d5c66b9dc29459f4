import {
  type CommitResult,
  hasCommandPart,
  type InteractionEvent,
  type InteractionRecord,
  type SessionCommit,
  type SessionEvent,
  type SessionMessage,
  sequencedMutation,
  type UnsequencedMutation,
} from "@parley/session-core";
import { Prisma } from "@prisma/client";
import pg from "pg";
import {
  autoTitledSelect,
  commandAssignments,
  commandCtes,
  finishesInTurnWrite,
  queuedCommandsSelect,
  readsCommands,
  snapshotIsLatest,
} from "./commit-commands.js";
import { rejection, rejectionError, StaleSnapshot } from "./commit-rejections.js";
import { storedRequest } from "./interaction-json.js";
import { partsWrite, storedMessage } from "./message-parts.js";
import { toSessionCommand } from "./session-commands.js";
import { type LogRow, logRowOf } from "./session-log.js";
import { inTransaction, poolSqlClient, type SqlClient } from "./sql-client.js";
import {
  assignmentList,
  columnList,
  recordsetDefinition,
  replacingAssignmentList,
  valueList,
} from "./table-columns.js";
import {
  INTERACTION_COLUMNS,
  INTERACTION_WRITTEN_COLUMNS,
  MESSAGE_COLUMNS,
  SESSION_COLUMNS,
} from "./tables.js";

/**
 * The admin feed's advisory lock key. A revision that appends feed rows holds it SHARED from before
 * its ids are taken until it commits, so feed writers never wait for each other (no cross-session
 * serialisation through fsync, which the former exclusive lock imposed). Readers settle the feed by
 * taking it EXCLUSIVE for an instant (`parley_interaction_feed_mark()`, migration
 * `20261202170000_perf_commit_path`): that waits only for the writers already in flight, and makes
 * every id up to the mark it returns final. Arbitrary constant, same value as in that migration.
 */
export const FEED_LOCK_KEY = 7_342_911_002n;

function sessionPatchAssignments(commit: SessionCommit): Prisma.Sql[] {
  return assignmentList(SESSION_COLUMNS, commit.session_patch ?? {});
}

/**
 * The optimistic message write as a CTE body: an insert at expected revision 0 (a taken id or
 * sequence raises the unique violation `rejectionOf` reads), else an update only while the stored
 * revision is the expected one. It runs only when the session row was locked (`updated` has a
 * row), i.e. after the lock. The row is `storedMessage` (an assistant message's parts are rows,
 * keyed by the stored message's `sequence`, which it returns).
 */
function messageWrite(snapshot: SessionMessage, expected_revision: number): Prisma.Sql {
  const row = storedMessage(snapshot);
  if (expected_revision === 0) {
    return Prisma.sql`
      INSERT INTO messages (${columnList(MESSAGE_COLUMNS)})
      SELECT ${valueList(MESSAGE_COLUMNS, row)}
       WHERE EXISTS (SELECT 1 FROM updated)
      RETURNING sequence`;
  }
  const { revision, status, turn_id, updated_at, snapshot: stored } = row;
  const changed = assignmentList(MESSAGE_COLUMNS, {
    revision,
    status,
    turn_id,
    updated_at,
    snapshot: stored,
  });
  return Prisma.sql`
    UPDATE messages SET ${Prisma.join(changed, ", ")}
     WHERE session_id = ${snapshot.session_id} AND message_id = ${snapshot.message_id}
       AND revision = ${expected_revision}::int AND EXISTS (SELECT 1 FROM updated)
    RETURNING sequence`;
}

/** Message and part sequence of each record's tool part, when the commit's snapshot holds it. */
function positionsFromSnapshot(commit: SessionCommit, record: InteractionRecord) {
  const snapshot = commit.message?.snapshot;
  if (snapshot?.type !== "assistant" || snapshot.message_id !== record.message_id) return null;
  const part = snapshot.parts.find(
    (candidate) => candidate.type === "tool" && candidate.tool_call_id === record.tool_call_id,
  );
  return part ? { message_sequence: snapshot.sequence, part_sequence: part.sequence } : null;
}

/**
 * The write of the revision's Interaction rows as CTEs, gated on `accepted` (the session and message
 * checks passed). Positions missing from the commit are read from the stored message.
 */
function interactionsWrite(commit: SessionCommit, accepted: Prisma.Sql): Prisma.Sql | null {
  const records = commit.interactions ?? [];
  if (records.length === 0) return null;
  const rows = records.map((record) => {
    const { interaction } = record;
    const positions = positionsFromSnapshot(commit, record);
    return {
      session_id: record.session_id,
      interaction_id: interaction.interaction_id,
      message_id: record.message_id,
      message_sequence: positions?.message_sequence ?? null,
      part_sequence: positions?.part_sequence ?? null,
      tool_call_id: record.tool_call_id,
      tool_name: record.tool_name,
      ordinal: record.ordinal,
      type: interaction.interaction_type,
      status: interaction.status,
      turn_id: interaction.request.turn_id,
      request: storedRequest(interaction.request),
      response: interaction.response ?? null,
      cancel_reason: interaction.cancel_reason ?? null,
      responded_by: interaction.responded_by ?? null,
      created_at: interaction.request.created_at,
      resolved_at: interaction.resolved_at ?? null,
      resumed_at: interaction.resumed_at ?? null,
    } satisfies Record<keyof typeof INTERACTION_WRITTEN_COLUMNS, unknown>;
  });
  // A position the commit's snapshot does not hold is read from the stored message.
  const fromStoredMessage: Partial<Record<keyof typeof INTERACTION_WRITTEN_COLUMNS, Prisma.Sql>> = {
    message_sequence: Prisma.sql`COALESCE(r.message_sequence,
                    (SELECT m.sequence FROM messages m
                      WHERE m.session_id = r.session_id AND m.message_id = r.message_id), 0)`,
    part_sequence: Prisma.sql`COALESCE(r.part_sequence,
                    (SELECT p.sequence FROM messages m
                       JOIN message_parts p ON p.session_id = m.session_id AND p.message_sequence = m.sequence
                      WHERE m.session_id = r.session_id AND m.message_id = r.message_id
                        AND p.body->>'tool_call_id' = r.tool_call_id LIMIT 1), 0)`,
  };
  const selected = Object.keys(INTERACTION_WRITTEN_COLUMNS).map(
    (name) =>
      Prisma.sql`${fromStoredMessage[name as keyof typeof INTERACTION_WRITTEN_COLUMNS] ?? Prisma.raw(`r.${name}`)} AS ${Prisma.raw(name)}`,
  );
  const columns = columnList(INTERACTION_COLUMNS);
  const key = ["session_id", "interaction_id"];
  // A stored row is updated in place and a new one inserted (an upsert would also write WAL for the
  // row lock it takes first); the INSERT stays an upsert for a row another writer committed after
  // this statement's snapshot. The values hold the written columns, then `inbox_at`. The update also
  // names its rows by key as a parameter: joined on the recordset alone (which the planner guesses
  // at 100 rows), the statement's generic plan scanned every Interaction in each answer until the
  // table was large (measured: a scan at 10,000 Interactions, the key at 30,000;
  // generic-plan-commits.int.test.ts).
  return Prisma.sql`, interaction_values AS MATERIALIZED (
      SELECT ${Prisma.join(selected)}, COALESCE(r.resolved_at, r.created_at) AS inbox_at
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
               AS r(${recordsetDefinition(INTERACTION_WRITTEN_COLUMNS)})
       WHERE ${accepted}
    ), interactions_updated AS (
      UPDATE interactions i SET ${replacingAssignmentList(INTERACTION_COLUMNS, key, "v")}
        FROM interaction_values v
       WHERE i.interaction_id = ANY(${rows.map((row) => row.interaction_id)}::text[])
         AND i.session_id = v.session_id AND i.interaction_id = v.interaction_id
      RETURNING i.interaction_id
    ), indexed AS (
      INSERT INTO interactions (${columns})
      SELECT ${columns} FROM interaction_values v
       WHERE v.interaction_id NOT IN (SELECT interaction_id FROM interactions_updated)
      ON CONFLICT (session_id, interaction_id) DO UPDATE SET
        ${replacingAssignmentList(INTERACTION_COLUMNS, key, "EXCLUDED")}
    )`;
}

/**
 * The admin-feed append as two CTEs: the SHARED feed lock (see `FEED_LOCK_KEY`), taken only when
 * the checks passed and before any id is drawn, then the rows in the given order (ids ascending
 * with position).
 */
function feedWrite(
  commit: SessionCommit,
  events: readonly Omit<InteractionEvent, "event_id">[],
  accepted: Prisma.Sql,
  now: number,
): Prisma.Sql | null {
  if (events.length === 0) return null;
  // An entry references the Interaction's row when the revision writes it (`feedInteraction` reads it).
  const indexed = new Set((commit.interactions ?? []).map((record) => record.interaction.interaction_id));
  const rows = events.map((event) => ({
    session_id: event.session_id,
    interaction_id: event.interaction.interaction_id,
    kind: event.kind,
    interaction: indexed.has(event.interaction.interaction_id) ? null : event.interaction,
  }));
  return Prisma.sql`, feed_gate AS MATERIALIZED (
      SELECT pg_advisory_xact_lock_shared(${FEED_LOCK_KEY}::bigint) AS locked WHERE ${accepted}
    ), fed AS (
      INSERT INTO interaction_events (session_id, interaction_id, kind, interaction, created_at)
      SELECT e.value->>'session_id', e.value->>'interaction_id', e.value->>'kind',
             NULLIF(e.value->'interaction', 'null'::jsonb), ${now}::bigint
        FROM feed_gate, jsonb_array_elements(${JSON.stringify(rows)}::jsonb) WITH ORDINALITY AS e(value, position)
       ORDER BY e.position
      RETURNING event_id
    )`;
}

/**
 * The Turn row's write as CTEs (DESIGN §10.7), gated on `accepted`: the commit's new state, or, for
 * a `claim`, `running` with its holder and the epoch `updated` just advanced. A finished Turn stays
 * finished; the epoch never goes back. A stored row is updated in place: an upsert would also
 * write WAL for the row lock it takes first. A row the commit would leave as it is (same state, no
 * claim: most checkpoints of a running Turn) is not written at all: every update of a Turn row
 * changes an indexed column (`updated_at`), so it would add an entry to each of its indexes. The
 * INSERT, only for a Turn this statement's snapshot does not hold, stays an upsert for a row another
 * writer committed meanwhile.
 */
function turnWrite(commit: SessionCommit, accepted: Prisma.Sql, now: number): Prisma.Sql {
  const { claim } = commit;
  const turn = claim ? { turn_id: claim.turn_id, state: "running" } : commit.turn;
  if (!turn) return Prisma.empty;
  const state = finishesInTurnWrite(commit) ? "finished" : turn.state;
  const holder = claim ? claim.holder : null;
  return Prisma.sql`, turn_updated AS (
      UPDATE turns
         SET state = ${state}, epoch = GREATEST(turns.epoch, updated.lease_epoch), updated_at = ${now}::bigint,
             holder = COALESCE(${holder}::text, turns.holder)
        FROM updated
       WHERE turns.session_id = ${commit.session_id} AND turns.turn_id = ${turn.turn_id}
         AND turns.state <> 'finished' AND ${accepted}
         AND (turns.state <> ${state} OR turns.epoch < updated.lease_epoch OR ${holder}::text IS NOT NULL)
    ), turned AS (
      INSERT INTO turns (session_id, turn_id, state, holder, epoch, updated_at)
      SELECT ${commit.session_id}, ${turn.turn_id}, ${state}, ${holder}::text, updated.lease_epoch, ${now}::bigint
        FROM updated
       WHERE ${accepted}
         AND NOT EXISTS (SELECT 1 FROM turns WHERE session_id = ${commit.session_id} AND turn_id = ${turn.turn_id})
      ON CONFLICT (session_id, turn_id) DO UPDATE
        SET state = EXCLUDED.state, epoch = GREATEST(turns.epoch, EXCLUDED.epoch), updated_at = EXCLUDED.updated_at,
            holder = COALESCE(EXCLUDED.holder, turns.holder)
      WHERE turns.state <> 'finished'
    )`;
}

/**
 * One revision as ONE statement, so one round trip and one implicit transaction (autocommit):
 * - `updated` locks the session row (serialising the session's commits) while checking the fencing
 *   epoch, applying the session patch and taking the next event id (two with a preceding mutation);
 * - `written` writes the message with its optimistic check, only once the row is locked (under READ
 *   COMMITTED an UPDATE that met a concurrently committed row re-checks `revision` on the newest
 *   version; an INSERT meets the unique keys), and `parts_updated`/`parted` the parts the
 *   revision changed;
 * - `logged` appends the commit's replay-log row, keyed by the last id it takes (gap-free per
 *   session: counter and rows share the session lock and the statement's atomicity; one row per
 *   commit, session-log.ts); its `mutation` leaves out what its columns hold (`replayedMutation`
 *   puts it back);
 * - `interactions_updated`/`indexed` write the interaction rows, `turn_updated`/`turned` the Turn
 *   row's state (DESIGN §10.7; a finished Turn stays finished), `feed_gate`/`fed` append the admin
 *   feed; rows are updated in place and inserted when new, not upserted (no WAL for a row lock);
 * - the final SELECT raises when a check failed, which aborts the whole statement.
 * Every data-modifying CTE runs exactly once; the later ones read the earlier ones' RETURNING only.
 */
function revisionStatement(
  commit: SessionCommit,
  log_row: LogRow | null,
  events: readonly Omit<InteractionEvent, "event_id">[],
  now: number,
): Prisma.Sql {
  const { session_id, epoch, message } = commit;
  const count = log_row?.count ?? 0;
  const assignments = [
    Prisma.sql`last_event_id = last_event_id + ${count}::int`,
    ...(commit.claim ? [Prisma.sql`lease_epoch = lease_epoch + 1`] : []),
    ...sessionPatchAssignments(commit),
    ...commandAssignments(commit),
  ];
  const latest = readsCommands(commit) ? Prisma.sql`AND ${snapshotIsLatest(session_id)}` : Prisma.empty;
  const written = message
    ? Prisma.sql`, written AS (${messageWrite(message.snapshot, message.expected_revision)})`
    : Prisma.empty;
  const parted = partsWrite(commit) ?? Prisma.empty;
  const messageWritten = message ? Prisma.sql`EXISTS (SELECT 1 FROM written)` : Prisma.sql`TRUE`;
  const accepted = Prisma.sql`EXISTS (SELECT 1 FROM updated) AND ${messageWritten}`;
  // The row's key is the new counter: the id of the commit's last mutation.
  const logged =
    log_row === null
      ? Prisma.empty
      : Prisma.sql`, logged AS (
      INSERT INTO session_events (session_id, event_id, mutation, created_at)
      SELECT ${session_id}, updated.last_event_id, ${log_row.json}::json, ${log_row.created_at}::bigint
        FROM updated WHERE ${messageWritten}
    )`;
  const indexed = interactionsWrite(commit, accepted) ?? Prisma.empty;
  const feed = feedWrite(commit, events, accepted, now);
  const turned = turnWrite(commit, accepted, now);
  const commands = hasCommandPart(commit) ? commandCtes(commit, accepted, now) : Prisma.empty;
  const feedIds = feed
    ? Prisma.sql`(SELECT array_agg(event_id ORDER BY event_id) FROM fed)`
    : Prisma.sql`NULL::bigint[]`;
  return Prisma.sql`
    WITH updated AS (
      UPDATE sessions SET ${Prisma.join(assignments, ", ")}
       WHERE session_id = ${session_id} AND closed_at IS NULL
         AND (${epoch ?? null}::int IS NULL OR lease_epoch = ${epoch ?? null}::int) ${latest}
      RETURNING last_event_id, lease_epoch
    )${written}${parted}${logged}${indexed}${turned}${commands}${feed ?? Prisma.empty}
    SELECT (SELECT last_event_id FROM updated) AS last_event_id,
           (SELECT lease_epoch FROM updated) AS lease_epoch, ${feedIds} AS feed_ids,
           ${autoTitledSelect(commit)} AS auto_titled, ${queuedCommandsSelect(commit)} AS queued_commands
     WHERE ${rejection(commit, messageWritten)}`;
}

/**
 * Commits one revision in one round trip (see `revisionStatement`), outside any transaction block.
 * Each JSON document is serialised once; a rejected revision throws the typed conflict and writes
 * nothing. A revision that reads the session's commands and whose snapshot turned out stale (a
 * command committed while it waited for the session row: `snapshotIsLatest`) goes again in a
 * transaction that locks the row first (sent with BEGIN, one round trip), so that the statement's
 * snapshot is taken after the lock; that costs three round trips more, only in that race.
 */
export async function commitRevision(
  pool: pg.Pool,
  commit: SessionCommit,
  now: number,
): Promise<CommitResult> {
  try {
    return await runRevision(poolSqlClient(pool), commit, now);
  } catch (error) {
    if (!(error instanceof StaleSnapshot)) throw error;
  }
  const lockSession = `SELECT 1 FROM sessions WHERE session_id = ${pg.escapeLiteral(commit.session_id)} FOR UPDATE`;
  return inTransaction(
    pool,
    async (tx) => {
      try {
        return await runRevision(tx, commit, now);
      } catch (error) {
        if (!(error instanceof StaleSnapshot)) throw error;
        throw new Error(`${error.message}, with the row locked`);
      }
    },
    lockSession,
  );
}

/** The revision statement on the pool (autocommit) or inside a transaction. */
async function runRevision(client: SqlClient, commit: SessionCommit, now: number): Promise<CommitResult> {
  const { mutation, preceding_mutation } = commit;
  const mutationJson = mutation ? JSON.stringify(mutation) : null;
  const precedingJson = preceding_mutation ? JSON.stringify(preceding_mutation) : null;
  const eventsJson = commit.interaction_events?.length ? JSON.stringify(commit.interaction_events) : null;
  const events: Omit<InteractionEvent, "event_id">[] = eventsJson ? JSON.parse(eventsJson) : [];
  const statement = revisionStatement(commit, logRowOf(commit), events, now);
  // `feed_ids` is a BIGINT[]: pg gives its elements as strings.
  let rows: {
    last_event_id: number | null;
    lease_epoch: number | null;
    feed_ids: string[] | null;
    auto_titled: boolean | null;
    queued_commands: Parameters<typeof toSessionCommand>[0][] | null;
  }[];
  try {
    rows = await client.rows(statement);
  } catch (error) {
    throw rejectionError(error, commit);
  }
  const row = rows[0];
  if (!row || row.last_event_id === null) {
    throw new Error(`Commit of session ${commit.session_id} returned no row`);
  }
  const ids = (row.feed_ids ?? []).map(Number);
  const interaction_events = events.map((event, index) => ({ ...event, event_id: ids[index] ?? Number.NaN }));
  const claimed = {
    ...(commit.claim && row.lease_epoch !== null ? { epoch: row.lease_epoch } : {}),
    ...(commit.starts_turn ? { auto_titled: row.auto_titled === true } : {}),
    ...(row.queued_commands ? { queued_commands: row.queued_commands.map(toSessionCommand) } : {}),
  };
  if (mutationJson === null) return { interaction_events, ...claimed };
  const event_id = row.last_event_id;
  const sequenced = (json: string, id: number): SessionEvent => ({
    session_id: commit.session_id,
    event_id: id,
    mutation: sequencedMutation(JSON.parse(json) as UnsequencedMutation, id),
  });
  const event = sequenced(mutationJson, event_id);
  if (precedingJson === null) return { event, interaction_events, ...claimed };
  return { event, preceding_event: sequenced(precedingJson, event_id - 1), interaction_events, ...claimed };
}
