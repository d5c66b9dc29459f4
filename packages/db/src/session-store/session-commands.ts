import {
  type EnqueueCommandInput,
  type EnqueueCommandResult,
  ParleyError,
  type SessionCommand,
  sessionCommandSchema,
} from "@parley/session-core";
import { Prisma } from "@prisma/client";
import type { SqlClient } from "./sql-client.js";
import { rejectionOf } from "./statement-rejection.js";
import { assignmentList, columnList, type RawRow, valueList } from "./table-columns.js";
import { SESSION_COLUMNS, SESSION_COMMAND_COLUMNS } from "./tables.js";

/** A `session_commands` row as selected by `COMMAND_COLUMNS`. */
type CommandRow = RawRow<typeof SESSION_COMMAND_COLUMNS>;

export const COMMAND_COLUMNS = columnList(SESSION_COMMAND_COLUMNS);

/**
 * A write of the session row that changes nothing. Every write of a session's commands makes one
 * (here and in `withdrawPrompt`): a revision that reads the commands checks that no write of that
 * row committed after its snapshot (`snapshotIsLatest`), so a command is always such a write.
 */
export const SESSION_ROW_WRITE = Prisma.sql`active_turn_id = active_turn_id`;

/** The session's queued commands with their queue `position`, to order or aggregate. */
export function queuedCommandRows(session_id: string): Prisma.Sql {
  return Prisma.sql`SELECT ${COMMAND_COLUMNS}, position FROM session_commands
     WHERE session_id = ${session_id} AND status = 'queued'`;
}

export function toSessionCommand(row: CommandRow): SessionCommand {
  return sessionCommandSchema.parse({
    session_id: row.session_id,
    command_id: row.command_id,
    kind: row.kind,
    input: row.input,
    request_id: row.request_id,
    turn_id: row.turn_id,
    status: row.status,
    created_at: Number(row.created_at),
    ...(row.kind === "stop" ? { result: row.result ?? null } : {}),
  });
}

/** What an `enqueueCommand` statement reports, one row per outcome that applies. */
type EnqueueOutcome = "inserted" | "earlier" | "session_not_found" | "session_closed";

/** The earlier command of a `request_id`, read after the statement lost a race for that key. */
async function earlierCommand(
  sql: SqlClient,
  session_id: string,
  request_id: string,
): Promise<EnqueueCommandResult> {
  const rows = await sql.rows<CommandRow>(Prisma.sql`
    SELECT ${COMMAND_COLUMNS} FROM session_commands
     WHERE session_id = ${session_id} AND request_id = ${request_id}`);
  const row = rows[0];
  if (!row) throw new Error(`Command of request ${request_id} in session ${session_id} not found`);
  return { command: toSessionCommand(row), created: false, auto_titled: false };
}

/**
 * ONE statement (one round trip; it was an interactive transaction of five): lock the session row
 * (ordering the command against the session's commits, a Turn's `finish` included), refuse a
 * missing or closed session, return the earlier command of a known `request_id`, else assign a
 * prompt its Turn (the active one, or `new_turn_id`, which becomes active) and insert the command,
 * with the session patch of the call (and its `auto_title` while untitled).
 *
 * The locked row is the latest version (a lock that waited re-reads it), but the statement's other
 * reads see its snapshot: a concurrent call with the same `request_id` that committed while this one
 * waited for the lock is not in `earlier`. The unique key catches it; the statement then raises, so
 * nothing of it is written, and the earlier command is read in a fresh statement.
 */
export async function enqueueCommand(
  sql: SqlClient,
  input: EnqueueCommandInput,
): Promise<EnqueueCommandResult> {
  const { session_id, command } = input;
  const request_id = command.kind === "prompt" ? (command.request_id ?? null) : null;
  const prompt = command.kind === "prompt";
  // A prompt of an idle session without `new_turn_id` is a caller's bug: the statement raises.
  const turn_id = prompt
    ? Prisma.sql`COALESCE(active_turn_id, ${input.new_turn_id ?? null}::text,
        CASE WHEN parley_reject_commit('idle_prompt_without_turn') THEN NULL::text END)`
    : Prisma.sql`NULL::text`;
  const auto_titled = input.auto_title === undefined ? Prisma.sql`FALSE` : Prisma.sql`(title = '')`;
  const assignments = assignmentList(SESSION_COLUMNS, input.session_patch ?? {});
  if (prompt) assignments.push(Prisma.sql`active_turn_id = plan.turn_id`);
  if (input.auto_title !== undefined) {
    assignments.push(
      Prisma.sql`title = CASE WHEN plan.auto_titled THEN ${input.auto_title} ELSE s.title END`,
    );
  }
  // The session row is written even when nothing of it changes (see `SESSION_ROW_WRITE`).
  if (assignments.length === 0) assignments.push(SESSION_ROW_WRITE);
  const update = Prisma.sql`, updated AS (
          UPDATE sessions s SET ${Prisma.join(assignments, ", ")} FROM plan
           WHERE s.session_id = ${session_id} RETURNING 1)`;
  const values = valueList(
    SESSION_COMMAND_COLUMNS,
    {
      session_id,
      command_id: input.command_id,
      kind: command.kind,
      input: command.input,
      request_id,
      turn_id: null,
      status: "queued",
      result: null,
      created_at: input.created_at,
    },
    { turn_id: Prisma.sql`plan.turn_id` },
  );
  let rows: (CommandRow & { outcome: EnqueueOutcome; auto_titled: boolean })[];
  try {
    rows = await sql.rows(Prisma.sql`
      WITH locked AS (
        SELECT closed_at, active_turn_id, title, lease_epoch FROM sessions WHERE session_id = ${session_id} FOR UPDATE
      ), earlier AS (
        SELECT ${COMMAND_COLUMNS} FROM session_commands
         WHERE ${request_id}::text IS NOT NULL AND session_id = ${session_id} AND request_id = ${request_id}::text
      ), plan AS (
        SELECT ${turn_id} AS turn_id, ${auto_titled} AS auto_titled FROM locked
         WHERE closed_at IS NULL AND NOT EXISTS (SELECT 1 FROM earlier)
      )${update}, inserted AS (
        INSERT INTO session_commands (${COMMAND_COLUMNS})
        SELECT ${values} FROM plan
        ON CONFLICT (session_id, request_id) WHERE request_id IS NOT NULL DO NOTHING
        RETURNING ${COMMAND_COLUMNS}
      )${prompt ? queuedTurn(session_id) : Prisma.empty}
      SELECT 'inserted' AS outcome, (SELECT auto_titled FROM plan) AS auto_titled, inserted.* FROM inserted
      UNION ALL
      SELECT 'earlier', FALSE, earlier.* FROM earlier
      UNION ALL
      SELECT CASE WHEN closed_at IS NULL THEN 'session_not_found' ELSE 'session_closed' END, FALSE, earlier.*
        FROM (SELECT NULL::bigint AS closed_at WHERE NOT EXISTS (SELECT 1 FROM locked)
              UNION ALL SELECT closed_at FROM locked WHERE closed_at IS NOT NULL) AS refused
        LEFT JOIN earlier ON FALSE
      UNION ALL
      -- Planned but not inserted: the unique key met a command committed after this snapshot (CASE
      -- keeps the raise behind the test).
      SELECT 'unreachable', FALSE, earlier.* FROM earlier RIGHT JOIN (SELECT 1) AS one ON FALSE
       WHERE CASE WHEN EXISTS (SELECT 1 FROM plan) AND NOT EXISTS (SELECT 1 FROM inserted)
                  THEN parley_reject_commit('request_conflict') ELSE FALSE END`);
  } catch (error) {
    if (request_id !== null && rejectionOf(error)?.reason === "request_conflict") {
      return earlierCommand(sql, session_id, request_id);
    }
    throw error;
  }
  const outcome = (name: EnqueueOutcome) => rows.find((row) => row.outcome === name);
  if (outcome("session_closed")) throw new ParleyError("session_closed", `Session is closed: ${session_id}`);
  const inserted = outcome("inserted");
  if (inserted)
    return { command: toSessionCommand(inserted), created: true, auto_titled: inserted.auto_titled };
  const earlier = outcome("earlier");
  if (earlier) return { command: toSessionCommand(earlier), created: false, auto_titled: false };
  throw new ParleyError("session_not_found", `Session not found: ${session_id}`);
}

/**
 * The Turn row of the Turn a prompt of an idle session starts (DESIGN §10.7): `queued`, committed
 * with the prompt. A prompt joining the active Turn writes no row.
 */
function queuedTurn(session_id: string): Prisma.Sql {
  return Prisma.sql`, queued_turn AS (
        INSERT INTO turns (session_id, turn_id, state, holder, epoch, updated_at)
        SELECT ${session_id}, plan.turn_id, 'queued', NULL, locked.lease_epoch, ${Date.now()}::bigint
          FROM plan, locked
         WHERE locked.active_turn_id IS NULL AND EXISTS (SELECT 1 FROM inserted)
        ON CONFLICT (session_id, turn_id) DO NOTHING
      )`;
}
