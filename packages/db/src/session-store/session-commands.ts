import {
  type EnqueueCommandInput,
  type EnqueueCommandResult,
  ParleyError,
  type SessionCommand,
  type SessionCommit,
  StoreConflictError,
  sessionCommandSchema,
} from "@parley/session-core";
import { Prisma, type PrismaClient } from "@prisma/client";
import { assignmentList, columnList, type RawRow, valueList } from "./table-columns.js";
import { SESSION_COLUMNS, SESSION_COMMAND_COLUMNS } from "./tables.js";

/** A `session_commands` row as selected by `COMMAND_COLUMNS`. */
type CommandRow = RawRow<typeof SESSION_COMMAND_COLUMNS>;

export const COMMAND_COLUMNS = columnList(SESSION_COMMAND_COLUMNS);

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

/**
 * One transaction: lock the session row (ordering the command against the session's commits, a
 * Turn's `finish` included), refuse a closed session, return the earlier command of a known
 * `request_id`, else assign a prompt its Turn (the active one, or a new one that becomes active) and
 * insert the command, with the session patch of the call (and its `auto_title` while untitled).
 */
export async function enqueueCommand(
  prisma: PrismaClient,
  input: EnqueueCommandInput,
  transactionOptions: { maxWait: number; timeout: number },
): Promise<EnqueueCommandResult> {
  const { session_id, command } = input;
  const request_id = command.kind === "prompt" ? (command.request_id ?? null) : null;
  return prisma.$transaction(async (tx) => {
    const sessions = await tx.$queryRaw<
      { closed_at: bigint | null; active_turn_id: string | null; title: string }[]
    >`
      SELECT closed_at, active_turn_id, title FROM sessions WHERE session_id = ${session_id} FOR UPDATE`;
    const session = sessions[0];
    if (!session) throw new ParleyError("session_not_found", `Session not found: ${session_id}`);
    if (session.closed_at !== null)
      throw new ParleyError("session_closed", `Session is closed: ${session_id}`);
    if (request_id !== null) {
      const earlier = await tx.$queryRaw<CommandRow[]>`
        SELECT ${COMMAND_COLUMNS} FROM session_commands
         WHERE session_id = ${session_id} AND request_id = ${request_id}`;
      if (earlier[0]) return { command: toSessionCommand(earlier[0]), created: false, auto_titled: false };
    }
    let turn_id: string | null = null;
    if (command.kind === "prompt") {
      turn_id = session.active_turn_id ?? input.new_turn_id ?? null;
      if (turn_id === null) throw new Error(`A prompt of an idle session needs new_turn_id: ${session_id}`);
    }
    const assignments = assignmentList(SESSION_COLUMNS, input.session_patch ?? {});
    if (turn_id !== null) assignments.push(Prisma.sql`active_turn_id = ${turn_id}`);
    // The row is locked: an untitled session read here stays untitled until this commits.
    const auto_titled = input.auto_title !== undefined && session.title === "";
    if (auto_titled) assignments.push(Prisma.sql`title = ${input.auto_title}`);
    if (assignments.length > 0) {
      await tx.$executeRaw`UPDATE sessions SET ${Prisma.join(assignments, ", ")} WHERE session_id = ${session_id}`;
    }
    // ON CONFLICT: a concurrent retry cannot get here (the row lock orders it after this one), but
    // the unique key is the guarantee.
    const rows = await tx.$queryRaw<CommandRow[]>`
      INSERT INTO session_commands (${COMMAND_COLUMNS})
      VALUES (${valueList(SESSION_COMMAND_COLUMNS, {
        session_id,
        command_id: input.command_id,
        kind: command.kind,
        input: command.input,
        request_id,
        turn_id,
        status: "queued",
        result: null,
        created_at: input.created_at,
      })})
      ON CONFLICT (session_id, request_id) DO NOTHING
      RETURNING ${COMMAND_COLUMNS}`;
    const row = rows[0];
    if (!row) throw new Error(`Command ${input.command_id} of session ${session_id} was not inserted`);
    return { command: toSessionCommand(row), created: true, auto_titled };
  }, transactionOptions);
}

/**
 * The command part of a revision, after the session row was locked by the revision's first
 * statement: settle the commands it applies or cancels, then end its Turn (refused while a prompt
 * for that Turn is still queued, unless they are cancelled with it).
 */
export async function settleCommandsInCommit(
  tx: Prisma.TransactionClient,
  commit: SessionCommit,
): Promise<void> {
  const settlements = commit.settle_commands ?? [];
  if (settlements.length > 0) {
    const settled = await tx.$executeRaw`
      UPDATE session_commands c
         SET status = s.status, result = s.result, settled_at = ${Date.now()}::bigint
        FROM jsonb_to_recordset(${JSON.stringify(
          settlements.map((settlement) => ({ ...settlement, result: settlement.result ?? null })),
        )}::jsonb) AS s(command_id text, status text, result jsonb)
       WHERE c.session_id = ${commit.session_id} AND c.command_id = s.command_id AND c.status = 'queued'`;
    if (settled !== settlements.length) {
      throw new StoreConflictError(
        "revision",
        `A command of session ${commit.session_id} is no longer queued`,
      );
    }
  }
  const ends = commit.ends_turn;
  if (!ends) return;
  if (ends.cancel_queued_prompts) {
    await tx.$executeRaw`
      UPDATE session_commands SET status = 'cancelled', settled_at = ${Date.now()}::bigint
       WHERE session_id = ${commit.session_id} AND status = 'queued' AND kind = 'prompt'
         AND turn_id = ${ends.turn_id}`;
  } else {
    const waiting = await tx.$queryRaw<{ waiting: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM session_commands
                      WHERE session_id = ${commit.session_id} AND status = 'queued' AND kind = 'prompt'
                        AND turn_id = ${ends.turn_id}) AS waiting`;
    if (waiting[0]?.waiting) {
      throw new StoreConflictError("queued", `A prompt for Turn ${ends.turn_id} is still queued`);
    }
  }
  await tx.$executeRaw`
    UPDATE sessions SET active_turn_id = NULL
     WHERE session_id = ${commit.session_id} AND active_turn_id = ${ends.turn_id}`;
}
