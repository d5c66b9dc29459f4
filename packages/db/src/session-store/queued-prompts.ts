import type { PromptCommand, WithdrawPromptResult } from "@parley/session-core";
import { Prisma } from "@prisma/client";
import { COMMAND_COLUMNS, SESSION_ROW_WRITE, toSessionCommand } from "./session-commands.js";
import type { SqlClient } from "./sql-client.js";

type CommandRow = Parameters<typeof toSessionCommand>[0];

/**
 * "Joined its Turn": an earlier prompt of the same Turn exists (the one that started it). Written
 * against the alias `c` of the command in question.
 */
const JOINED_ITS_TURN = Prisma.sql`EXISTS (
  SELECT 1 FROM session_commands e
   WHERE e.session_id = c.session_id AND e.kind = 'prompt' AND e.turn_id = c.turn_id
     AND e.position < c.position)`;

/** `SessionStore.listQueuedPrompts`: one indexed read of the session's queued commands. */
export async function listQueuedPrompts(sql: SqlClient, session_id: string): Promise<PromptCommand[]> {
  const rows = await sql.rows<CommandRow>(Prisma.sql`
    SELECT ${COMMAND_COLUMNS} FROM session_commands c
     WHERE c.session_id = ${session_id} AND c.status = 'queued' AND c.kind = 'prompt' AND ${JOINED_ITS_TURN}
     ORDER BY c.position`);
  return rows.map(toSessionCommand).filter((command): command is PromptCommand => command.kind === "prompt");
}

/**
 * `SessionStore.withdrawPrompt`. The UPDATE cancels the row only while it is `queued`: a Turn that
 * applies the prompt updates the same row under `status = 'queued'` too, so Postgres orders the two
 * on the row lock and the second finds it settled (READ COMMITTED re-checks the WHERE clause on the
 * row the first committed). Only when nothing was updated does a second read say why.
 */
export async function withdrawPrompt(
  sql: SqlClient,
  input: { session_id: string; request_id: string; settled_at: number },
): Promise<WithdrawPromptResult["status"] | "not_found"> {
  // The session row is written (see `SESSION_ROW_WRITE`), and locked first, in the order of a
  // revision's locks.
  const [withdrawn] = await sql.rows<{ withdrawn: number }>(Prisma.sql`
    WITH touched AS (
      UPDATE sessions SET ${SESSION_ROW_WRITE} WHERE session_id = ${input.session_id} RETURNING 1
    ), withdrawn AS (
      UPDATE session_commands c SET status = 'cancelled', settled_at = ${input.settled_at}::bigint
       WHERE c.session_id = ${input.session_id} AND c.request_id = ${input.request_id}
         AND c.kind = 'prompt' AND c.status = 'queued' AND ${JOINED_ITS_TURN}
         AND EXISTS (SELECT 1 FROM touched)
      RETURNING 1
    )
    SELECT count(*)::int AS withdrawn FROM withdrawn`);
  if (withdrawn?.withdrawn === 1) return "withdrawn";
  const rows = await sql.rows<{ status: string; joined: boolean }>(Prisma.sql`
    SELECT c.status, ${JOINED_ITS_TURN} AS joined FROM session_commands c
     WHERE c.session_id = ${input.session_id} AND c.request_id = ${input.request_id} AND c.kind = 'prompt'`);
  const row = rows[0];
  if (row === undefined) return "not_found";
  if (!row.joined) return "starts_turn";
  if (row.status === "applied") return "applied";
  if (row.status === "cancelled") return "withdrawn";
  throw new Error(
    `Prompt ${input.request_id} of session ${input.session_id} is still queued after its withdrawal`,
  );
}
