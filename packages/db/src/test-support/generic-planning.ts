import pg from "pg";

/**
 * One connection that plans every named statement generically (`plan_cache_mode`), as a long-lived
 * connection may after a few executions: a plan found here cannot depend on the values.
 */
export function genericPlanningPool(url: string): pg.Pool {
  return new pg.Pool({ connectionString: url, max: 1, options: "-c plan_cache_mode=force_generic_plan" });
}

/** Open sessions of `user:1` with these ids (rows only, as a seed). */
export async function insertSessions(pool: pg.Pool, session_ids: readonly string[]): Promise<void> {
  await pool.query(
    `INSERT INTO sessions (session_id, owner_id, agent_id, title, created_at, updated_at, approval_mode,
                           effective_approval_mode, last_event_id)
     SELECT id, 'user:1', 'agent:1', '', 1, 1, 'ask', 'ask', 0 FROM unnest($1::text[]) AS id`,
    [session_ids],
  );
}

/** `session:0` … `session:<last>`. */
export function numberedSessionIds(last: number): string[] {
  return Array.from({ length: last + 1 }, (_, n) => `session:${n}`);
}
