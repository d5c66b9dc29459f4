import {
  hasCommandPart,
  reportsQueuedCommands,
  type SessionCommit,
  StoreConflictError,
  startingPromptCommand,
} from "@parley/session-core";
import { Prisma } from "@prisma/client";
import { COMMAND_COLUMNS, queuedCommandRows } from "./session-commands.js";
import { valueList } from "./table-columns.js";
import { SESSION_COMMAND_COLUMNS } from "./tables.js";

// The command part of a revision statement (see `revisionStatement`): a Turn's start
// (`starts_turn`), the commands it settles (`settle_commands`) and its finish (`ends_turn`). Each
// reads the session's commands, so a revision with any of them checks that its snapshot is the
// session row's latest version (`readsCommands`, `snapshotIsLatest`): every write of a session's
// commands also writes its session row (see `enqueueCommand`, `withdrawPrompt`).

/**
 * Whether the revision reads the session's commands, and so checks that its snapshot is the latest:
 * with a command part, or when it reports the queued commands.
 */
export function readsCommands(commit: SessionCommit): boolean {
  return hasCommandPart(commit) || reportsQueuedCommands(commit);
}

/**
 * The queued commands a revision reports (`report_queued_commands`), as a JSON array in queue order,
 * read with the session row's latest version (see `snapshotIsLatest`).
 */
export function queuedCommandsSelect(commit: SessionCommit): Prisma.Sql {
  if (!reportsQueuedCommands(commit)) return Prisma.sql`NULL::jsonb`;
  return Prisma.sql`(SELECT COALESCE(jsonb_agg(to_jsonb(q) ORDER BY q.position), '[]'::jsonb)
      FROM (${queuedCommandRows(commit.session_id)}) AS q)`;
}

/**
 * The condition `updated` adds for such a revision. Under READ COMMITTED a statement's reads see the
 * snapshot it took when it began, while its UPDATE of the session row, having waited for that row's
 * lock, applies to the newest version (Postgres re-checks the WHERE clause on it). A write that
 * committed in between would be invisible to the command reads: then `xmin` (the writer of the
 * version) differs from the snapshot's, `updated` is empty, and the revision is rejected as
 * `stale` and goes again with the row locked first (see `commitRevision`).
 */
export function snapshotIsLatest(session_id: string): Prisma.Sql {
  return Prisma.sql`xmin = (SELECT xmin FROM sessions WHERE session_id = ${session_id})`;
}

/**
 * The session row's own changes: a start makes its Turn the active one (and an untitled session
 * takes the prompt's title, unless the patch sets one), a finish clears it. A refused start or
 * finish aborts the statement, so these need no condition of their own.
 */
export function commandAssignments(commit: SessionCommit): Prisma.Sql[] {
  const { starts_turn, ends_turn } = commit;
  const assignments: Prisma.Sql[] = [];
  if (starts_turn) {
    assignments.push(Prisma.sql`active_turn_id = ${starts_turn.turn_id}`);
    if (starts_turn.auto_title !== undefined && commit.session_patch?.title === undefined) {
      assignments.push(
        Prisma.sql`title = CASE WHEN title = '' THEN ${starts_turn.auto_title}::text ELSE title END`,
      );
    }
  }
  if (ends_turn) {
    assignments.push(
      Prisma.sql`active_turn_id = CASE WHEN active_turn_id = ${ends_turn.turn_id} THEN NULL ELSE active_turn_id END`,
    );
  }
  return assignments;
}

/**
 * The command CTEs, each gated on `accepted` (and so run after `updated` locked the session row):
 * - `start_busy`/`start_inserted`: the starting prompt, recorded `applied`, unless the session has
 *   an active Turn or a queued command, or its `request_id` was used;
 * - `settlement`/`settled`: the commands this revision applies or cancels, while still `queued`;
 * - `cancelled`/`waiting`: a finish's prompts still queued for its Turn, cancelled with it or
 *   refusing it; `finished`: its Turn row (unless `turned` writes that row already).
 * All read one snapshot, in which the commands settled here are still `queued`: the finish's check
 * and cancellation leave those out, as they would after the settlement.
 */
export function commandCtes(commit: SessionCommit, accepted: Prisma.Sql, now: number): Prisma.Sql {
  const { session_id, starts_turn: start, ends_turn: ends } = commit;
  const parts: Prisma.Sql[] = [];
  if (start) {
    const command = startingPromptCommand(session_id, start);
    const values = valueList(SESSION_COMMAND_COLUMNS, { ...command, result: null });
    // Only a request id can meet an earlier command (the command id is new): without one, a plain
    // INSERT (an upsert writes WAL to confirm its speculative insert).
    const retried =
      command.request_id === null
        ? Prisma.empty
        : Prisma.sql`ON CONFLICT (session_id, request_id) WHERE request_id IS NOT NULL DO NOTHING`;
    parts.push(Prisma.sql`, start_busy AS (
      SELECT EXISTS (SELECT 1 FROM sessions WHERE session_id = ${session_id} AND active_turn_id IS NOT NULL)
          OR EXISTS (SELECT 1 FROM session_commands WHERE session_id = ${session_id} AND status = 'queued') AS busy
    ), start_inserted AS (
      INSERT INTO session_commands (${COMMAND_COLUMNS}, settled_at)
      SELECT ${values}, ${now}::bigint FROM start_busy WHERE NOT start_busy.busy AND ${accepted}
      ${retried}
      RETURNING 1
    )`);
  }
  const settlements = commit.settle_commands ?? [];
  if (settlements.length > 0 || ends) {
    const rows = settlements.map((settlement) => ({ ...settlement, result: settlement.result ?? null }));
    parts.push(Prisma.sql`, settlement AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS s(command_id text, status text, result jsonb)
    ), settled AS (
      UPDATE session_commands c
         SET status = s.status, result = s.result, settled_at = ${now}::bigint
        FROM settlement s
       WHERE c.session_id = ${session_id} AND c.command_id = s.command_id AND c.status = 'queued' AND ${accepted}
      RETURNING 1
    )`);
  }
  if (ends) {
    const queuedOfTurn = Prisma.sql`session_commands q
        WHERE q.session_id = ${session_id} AND q.status = 'queued' AND q.kind = 'prompt'
          AND q.turn_id = ${ends.turn_id} AND q.command_id NOT IN (SELECT command_id FROM settlement)`;
    parts.push(
      ends.cancel_queued_prompts
        ? Prisma.sql`, cancelled AS (
            UPDATE session_commands SET status = 'cancelled', settled_at = ${now}::bigint
             WHERE (session_id, command_id) IN (SELECT q.session_id, q.command_id FROM ${queuedOfTurn})
               AND ${accepted}
          ), waiting AS (SELECT FALSE AS waiting)`
        : Prisma.sql`, waiting AS (SELECT EXISTS (SELECT 1 FROM ${queuedOfTurn}) AS waiting)`,
    );
    if (!finishesInTurnWrite(commit)) {
      // The Turn row says so in the same revision (DESIGN §10.7).
      parts.push(Prisma.sql`, finished AS (
        UPDATE turns SET state = 'finished', updated_at = ${now}::bigint
         WHERE session_id = ${session_id} AND turn_id = ${ends.turn_id} AND state <> 'finished' AND ${accepted}
      )`);
    }
  }
  return parts.length === 0 ? Prisma.empty : Prisma.join(parts, "");
}

/**
 * Whether the revision's `turned` CTE writes the finishing Turn's row (its `turn` or `claim` names
 * that Turn): it then writes it `finished`, as one statement may change a row only once.
 */
export function finishesInTurnWrite(commit: SessionCommit): boolean {
  const written = commit.claim?.turn_id ?? commit.turn?.turn_id;
  return written !== undefined && written === commit.ends_turn?.turn_id;
}

/** The `WHEN … THEN parley_reject_commit(…)` branches of a start's checks, after the session's. */
export function commandRejections(commit: SessionCommit): Prisma.Sql {
  if (!commit.starts_turn) return Prisma.empty;
  return Prisma.sql`
      WHEN (SELECT busy FROM start_busy) THEN parley_reject_commit('start_busy')
      WHEN NOT EXISTS (SELECT 1 FROM start_inserted) THEN parley_reject_commit('start_request_used')`;
}

/** The checks of settlements and a finish, after the message's (see `rejection`). */
export function settlementRejections(commit: SessionCommit): Prisma.Sql {
  const settlements = commit.settle_commands ?? [];
  const branches: Prisma.Sql[] = [];
  if (settlements.length > 0 || commit.ends_turn) {
    branches.push(Prisma.sql`
      WHEN (SELECT count(*) FROM settled) <> ${settlements.length}::int THEN parley_reject_commit('settled')`);
  }
  if (commit.ends_turn) {
    branches.push(Prisma.sql`
      WHEN (SELECT waiting FROM waiting) THEN parley_reject_commit('prompt_queued')`);
  }
  return branches.length === 0 ? Prisma.empty : Prisma.join(branches, "");
}

/** With `starts_turn`: whether the untitled session takes the prompt's title (read with the latest row). */
export function autoTitledSelect(commit: SessionCommit): Prisma.Sql {
  const start = commit.starts_turn;
  if (start?.auto_title === undefined || commit.session_patch?.title !== undefined) {
    return Prisma.sql`FALSE`;
  }
  return Prisma.sql`(SELECT title = '' FROM sessions WHERE session_id = ${commit.session_id})`;
}

/** The typed conflict of a command check's rejection; undefined for any other reason. */
export function commandRejectionError(reason: string, commit: SessionCommit): StoreConflictError | undefined {
  const { session_id } = commit;
  switch (reason) {
    case "start_busy":
      return new StoreConflictError("queued", `Session ${session_id} has an active Turn or a queued command`);
    case "start_request_used":
      return new StoreConflictError(
        "revision",
        `Prompt request ${commit.starts_turn?.request_id ?? ""} was committed before`,
      );
    case "settled":
      return new StoreConflictError("revision", `A command of session ${session_id} is no longer queued`);
    case "prompt_queued":
      return new StoreConflictError(
        "queued",
        `A prompt for Turn ${commit.ends_turn?.turn_id} is still queued`,
      );
    default:
      return undefined;
  }
}
