import type {
  ListQueuedSessionsQuery,
  TurnRecord,
  WorkNeedingDriver,
  WorkNeedingDriverQuery,
} from "@parley/session-core";
import { Prisma } from "@prisma/client";
import type pg from "pg";
import { HELD_LEASE_KEYS_SQL } from "../leases/turn-lease-holder.js";
import { readRows } from "./sql-client.js";
import { TURN_SELECT, type TurnRow, toTurnRecord } from "./turn-rows.js";

// The reads that ask "what needs a driver now?" (DESIGN §10.7): Turns whose holder is gone and
// sessions whose queued commands nobody drives. Each list's SQL is written once here and read
// alone or, by the liveness pass, both in one statement.

/** The advisory lock keys held now, as the CTE `held` that `turnsNeedingDriverSql` reads. */
const HELD_CTE = Prisma.sql`held AS MATERIALIZED (${Prisma.raw(HELD_LEASE_KEYS_SQL)})`;

/**
 * Queued rows are stamped with the enqueuing process's `Date.now()` (see `enqueueCommand`), so the
 * grace is measured on this process's clock too.
 */
function queuedBefore(queued_grace_ms: number | undefined): number {
  return Date.now() - (queued_grace_ms ?? 0);
}

/**
 * `turns (state, updated_at)` gives the queued and running Turns; a Turn whose session's advisory
 * lock is held (its holder lives) is left out, so the rows returned are the ones to drive. Reads
 * the CTE `held`.
 */
function turnsNeedingDriverSql(limit: number, queued_before: number): Prisma.Sql {
  return Prisma.sql`
    SELECT ${TURN_SELECT} FROM turns JOIN sessions s ON s.session_id = turns.session_id
     WHERE (turns.state = 'running' OR (turns.state = 'queued' AND turns.updated_at <= ${queued_before}::bigint))
       AND s.closed_at IS NULL
       AND hashtextextended(turns.session_id, 0) NOT IN (SELECT key FROM held)
     ORDER BY turns.updated_at, turns.session_id COLLATE "C", turns.turn_id COLLATE "C"
     LIMIT ${limit}::int`;
}

/**
 * Two index ranges, never a scan of what waits: queued prompts of `queued`/`running` Turns
 * (`turns (state, updated_at)`, then each session's commands by key) and queued stops
 * (`session_commands_queued_kind_idx`, queued commands only). A prompt behind a `waiting` Turn is not read.
 */
function sessionsWithQueuedCommandsSql(
  after: string | null,
  limit: number,
  queued_before: number,
): Prisma.Sql {
  return Prisma.sql`
    SELECT needy.session_id FROM (
      SELECT t.session_id FROM turns t
       WHERE (t.state = 'running' OR (t.state = 'queued' AND t.updated_at <= ${queued_before}::bigint))
         AND EXISTS (SELECT 1 FROM session_commands c
                      WHERE c.session_id = t.session_id AND c.status = 'queued' AND c.kind = 'prompt')
      UNION
      SELECT c.session_id FROM session_commands c WHERE c.kind = 'stop' AND c.status = 'queued'
    ) AS needy JOIN sessions s USING (session_id)
     WHERE s.closed_at IS NULL
       AND (${after}::text IS NULL OR needy.session_id COLLATE "C" > ${after}::text COLLATE "C")
     ORDER BY needy.session_id COLLATE "C" LIMIT ${limit}::int`;
}

export async function listTurnsNeedingDriver(
  pool: pg.Pool,
  query: { limit: number; queued_grace_ms?: number },
): Promise<TurnRecord[]> {
  const turns = turnsNeedingDriverSql(query.limit, queuedBefore(query.queued_grace_ms));
  const rows = await readRows<TurnRow>(pool, Prisma.sql`WITH ${HELD_CTE} ${turns}`);
  return rows.map(toTurnRecord);
}

export async function listSessionsWithQueuedCommands(
  pool: pg.Pool,
  query: ListQueuedSessionsQuery,
): Promise<string[]> {
  const sessions = sessionsWithQueuedCommandsSql(
    query.after ?? null,
    query.limit,
    queuedBefore(query.queued_grace_ms),
  );
  const rows = await readRows<{ session_id: string }>(pool, sessions);
  return rows.map((row) => row.session_id);
}

/** A row of the liveness pass: a Turn (`kind = 'turn'`) or a session with commands (Turn columns null). */
interface WorkRow {
  kind: "turn" | "commands";
  session_id: string;
  turn_id: string | null;
  state: string | null;
  holder: string | null;
  epoch: number | null;
  updated_at: bigint | null;
}

/**
 * Both lists in one statement, each by its own SQL and LIMIT (the same index reads as alone),
 * told apart by `kind`. It opens with the commands' CTE so that its text is told apart from
 * `listTurnsNeedingDriver`'s where statements are listed by their opening (bench/lib/idle-window.ts). The outer ORDER BY restates each list's order: the command rows' Turn
 * columns are null, so they sort by `session_id` alone.
 */
export async function listWorkNeedingDriver(
  pool: pg.Pool,
  query: WorkNeedingDriverQuery,
): Promise<WorkNeedingDriver> {
  const queued_before = queuedBefore(query.queued_grace_ms);
  const turns = turnsNeedingDriverSql(query.turn_limit, queued_before);
  const sessions = sessionsWithQueuedCommandsSql(null, query.command_session_limit, queued_before);
  const rows = await readRows<WorkRow>(
    pool,
    Prisma.sql`
      WITH command_sessions AS (${sessions}), ${HELD_CTE}, needing_turns AS (${turns})
      SELECT * FROM (
        SELECT 'turn' AS kind, session_id, turn_id, state, holder, epoch, updated_at FROM needing_turns
        UNION ALL
        SELECT 'commands', session_id, NULL, NULL, NULL, NULL, NULL FROM command_sessions
      ) AS work
      ORDER BY kind, updated_at, session_id COLLATE "C", turn_id COLLATE "C"`,
  );
  const work: WorkNeedingDriver = { turns: [], command_session_ids: [] };
  for (const row of rows) {
    // A turn row has every Turn column (`toTurnRecord` validates it).
    if (row.kind === "turn") work.turns.push(toTurnRecord(row as TurnRow));
    else work.command_session_ids.push(row.session_id);
  }
  return work;
}
