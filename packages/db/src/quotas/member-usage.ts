import type pg from "pg";

/** What a member uses now, read while their quota lock is held (`PostgresMemberUsage`). */
export interface MemberUsage {
  /** The member's sessions that are not closed, with the workspace each works in. */
  open_sessions: { session_id: string; workspace_id: string | null }[];
  /** Prompts the member sent since the given time: user messages, and prompts still queued. */
  prompts_since: number;
  /**
   * Whether the prompt being guarded repeats one already committed (same session and `request_id`):
   * a retry is answered from its first call (DESIGN §10.1) and is not a new prompt to count.
   */
  is_retry: boolean;
}

/** The prompt a guarded call is about to send, when it carries a `request_id`. */
export interface GuardedPromptKey {
  session_id: string;
  request_id: string;
}

/** How long a call waits for a member's quota lock before it fails (another call of theirs holds it). */
const LOCK_WAIT_MS = 10_000;

/**
 * Member quotas that hold across calls and instances: the check and the write it guards run under a
 * per-member transaction-scoped advisory lock, so two concurrent calls of one member cannot both
 * pass a check at its edge (the second reads what the first committed).
 *
 * The lock is taken with `pg_try_advisory_xact_lock` and retried, never waited for on a pooled
 * connection: the guarded write (the store's) needs a connection of its own, and waiters holding
 * the pool would starve it.
 */
export class PostgresMemberUsage {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /**
   * Runs `guarded` with the member's usage, while holding the member's lock; the lock is released
   * when `guarded` settles (after its write is committed).
   */
  async withMemberLock<T>(
    user_id: string,
    prompts_since_ms: number,
    guarded: (usage: MemberUsage) => Promise<T>,
    prompt_key?: GuardedPromptKey,
  ): Promise<T> {
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      const client = await this.#pool.connect();
      let locked = false;
      try {
        await client.query("BEGIN");
        const result = await client.query<{ locked: boolean }>(
          "SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked",
          [`parley-member-quota:${user_id}`],
        );
        locked = result.rows[0]?.locked === true;
        if (locked) {
          const usage = await readUsage(client, user_id, prompts_since_ms, prompt_key);
          return await guarded(usage);
        }
      } finally {
        await client.query(locked ? "COMMIT" : "ROLLBACK").catch(() => undefined);
        client.release();
      }
      if (Date.now() > deadline) throw new Error(`Member quota lock of ${user_id} stayed busy`);
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20));
    }
  }
}

async function readUsage(
  client: pg.PoolClient,
  user_id: string,
  since_ms: number,
  prompt_key: GuardedPromptKey | undefined,
): Promise<MemberUsage> {
  const sessions = await client.query<{ session_id: string; workspace_id: string | null }>(
    "SELECT session_id, workspace_id FROM sessions WHERE owner_id = $1 AND closed_at IS NULL",
    [user_id],
  );
  const prompts = await client.query<{ prompts: string }>(
    `SELECT (SELECT count(*) FROM messages m JOIN sessions s ON s.session_id = m.session_id
              WHERE s.owner_id = $1 AND m.type = 'user' AND m.created_at >= $2)
          + (SELECT count(*) FROM session_commands c JOIN sessions s ON s.session_id = c.session_id
              WHERE s.owner_id = $1 AND c.kind = 'prompt' AND c.status = 'queued' AND c.created_at >= $2)
            AS prompts`,
    [user_id, since_ms],
  );
  const retry = prompt_key
    ? await client.query(
        "SELECT 1 FROM session_commands WHERE session_id = $1 AND request_id = $2 AND kind = 'prompt'",
        [prompt_key.session_id, prompt_key.request_id],
      )
    : undefined;
  return {
    open_sessions: sessions.rows,
    prompts_since: Number(prompts.rows[0]?.prompts ?? 0),
    is_retry: (retry?.rowCount ?? 0) > 0,
  };
}
