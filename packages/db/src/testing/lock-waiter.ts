import type pg from "pg";

/**
 * Resolves once a statement of this database whose text contains `text` waits for a lock (bounded:
 * 20 s), so a test can let the transaction it waits behind go only once it really waits.
 */
export async function waitForLockWaiter(pool: pg.Pool, text: string): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt += 1) {
    const { rows } = await pool.query<{ waiting: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
                       WHERE datname = current_database() AND wait_event_type = 'Lock'
                         AND strpos(query, $1) > 0) AS waiting`,
      [text],
    );
    if (rows[0]?.waiting) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no statement on ${text} waited for a lock within 20 s`);
}
