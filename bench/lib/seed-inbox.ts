import pg from "pg";

export interface InboxSeed {
  owner_id: string;
  sessions: number;
  interactions: number;
  pending: number;
}

const TOOLS = ["write_file", "delete_file", "shell", "ask_question"];

/**
 * Fills the inbox tables with `interactions` rows (`pending` of them pending) in a few set-based
 * statements (`generate_series`), then ANALYZEs. Ten interactions per session; a session's last one
 * is pending while pending ones remain. Only `users`, `sessions` and `interactions` are written: the
 * inbox reads nothing else, and no message is open, so no process tries to resume these sessions.
 */
export async function seedInbox(
  databaseUrl: string,
  counts: { interactions: number; pending: number },
): Promise<InboxSeed> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const perSession = 10;
  const sessions = Math.ceil(counts.interactions / perSession);
  const owner_id = "user:bench-inbox-owner";
  const base = Date.now() - counts.interactions * 1000;
  try {
    await client.query("BEGIN");
    await client.query(
      `INSERT INTO users (user_id, name, role, created_at) VALUES ($1, 'bench-inbox-owner', 'member', $2)
       ON CONFLICT DO NOTHING`,
      [owner_id, base],
    );
    await client.query(
      `INSERT INTO sessions (session_id, owner_id, agent_id, title, workspace_id, created_at, updated_at,
                             approval_mode, effective_approval_mode)
       SELECT 'session:inbox-' || s, $1, 'bench', 'inbox session ' || s, NULL, $2::bigint + s, $2::bigint + s, 'ask', 'ask'
         FROM generate_series(1, $3::int) AS s`,
      [owner_id, base, sessions],
    );
    // Interaction n (1-based) belongs to session ceil(n / 10), ordinal n % 10 within its tool part.
    // It is pending when it is its session's last one and fewer than `pending` came before; the
    // rest rotate through resolved/denied/cancelled.
    await client.query(
      `WITH numbered AS (
         SELECT n,
                ((n - 1) / ${perSession}) + 1 AS s,
                (n - 1) % ${perSession} AS k,
                ($5::text[])[1 + (n % ${TOOLS.length})] AS tool_name,
                CASE
                  WHEN (n - 1) % ${perSession} = ${perSession - 1} AND ((n - 1) / ${perSession}) < $3 THEN 'pending'
                  WHEN n % 11 = 0 THEN 'denied'
                  WHEN n % 47 = 0 THEN 'cancelled'
                  ELSE 'resolved'
                END AS status
           FROM generate_series(1, $1::int) AS n
       )
       INSERT INTO interactions (session_id, interaction_id, message_id, message_sequence, part_sequence,
                                 tool_call_id, tool_name, ordinal, type, status, turn_id, request, response,
                                 cancel_reason, responded_by, created_at, resolved_at, inbox_at)
       SELECT 'session:inbox-' || s,
              'interaction:inbox-' || n,
              'message:inbox-' || s || '-' || k,
              2 * k + 2, 2, 'call_inbox_' || n, tool_name, 0,
              CASE WHEN tool_name = 'ask_question' THEN 'question' ELSE 'approval' END,
              status,
              'turn:inbox-' || s || '-' || k,
              jsonb_build_object(
                'interaction_id', 'interaction:inbox-' || n,
                'turn_id', 'turn:inbox-' || s || '-' || k,
                'type', CASE WHEN tool_name = 'ask_question' THEN 'question' ELSE 'approval' END,
                'source', jsonb_build_object('type', CASE WHEN tool_name = 'shell' THEN 'shell' ELSE 'tool' END,
                                             'tool_call_id', 'call_inbox_' || n, 'tool_name', tool_name),
                'title', 'Run ' || tool_name,
                'payload', CASE WHEN tool_name = 'ask_question'
                  THEN jsonb_build_object('questions', jsonb_build_array(jsonb_build_object(
                         'question_id', 'question:inbox-' || n, 'type', 'text', 'question', 'Which file?')))
                  ELSE jsonb_build_object('operation', CASE WHEN tool_name = 'shell' THEN 'exec' ELSE 'tool' END,
                                          'validated_input', jsonb_build_object('path', 'notes-' || n || '.txt'))
                END,
                'created_at', $2::bigint + n),
              CASE WHEN status IN ('resolved', 'denied') THEN jsonb_build_object(
                'type', CASE WHEN tool_name = 'ask_question' THEN 'question' ELSE 'approval' END,
                'outcome', status,
                'payload', CASE WHEN tool_name = 'ask_question'
                  THEN jsonb_build_object('answers', jsonb_build_array(jsonb_build_object(
                         'question_id', 'question:inbox-' || n, 'value', 'notes.txt')))
                  ELSE jsonb_build_object('decision', CASE WHEN status = 'resolved' THEN 'approved' ELSE 'denied' END)
                END) END,
              CASE WHEN status = 'cancelled' THEN 'session_disposed' END,
              CASE WHEN status IN ('resolved', 'denied') THEN $4 END,
              $2::bigint + n,
              CASE WHEN status <> 'pending' THEN $2::bigint + n + 500 END,
              CASE WHEN status <> 'pending' THEN $2::bigint + n + 500 ELSE $2::bigint + n END
         FROM numbered`,
      [counts.interactions, base, counts.pending, owner_id, TOOLS],
    );
    await client.query("COMMIT");
    await client.query("ANALYZE users, sessions, interactions");
    const pending = await client.query<{ count: string }>(
      "SELECT count(*) FROM interactions WHERE status = 'pending'",
    );
    return {
      owner_id,
      sessions,
      interactions: counts.interactions,
      pending: Number(pending.rows[0]?.count ?? 0),
    };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}
