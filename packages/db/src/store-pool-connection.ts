/**
 * The shared pool's connection settings: the database URL, with server settings of our own sent as
 * the startup `options` (after any the URL gives, which `pg` would otherwise let win over ours).
 *
 * `plan_cache_mode = force_generic_plan`: every store statement is named (`sql-client.ts`), and a
 * connection then plans each one once, generically, where Postgres would otherwise plan its first
 * five executions with their values before it settles on the same generic plan. The revision
 * statements take long to plan, so a pool whose connections are new (after a start, or after idle
 * connections were closed) answered its first bursts slowly: measured on 2 cores, six pairs of
 * 50-answer bursts on a new stack went from 238 to 265 /s (first burst) and 326 to 403 /s (second),
 * median of each. Every named statement's generic plan was audited against large tables, and
 * `generic-plan-reads.int.test.ts` checks the reads whose shape decides it (docs/performance.md).
 */
const STORE_SETTINGS = "-c plan_cache_mode=force_generic_plan";

export function storePoolConnection(url: string): { connectionString: string; options: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { connectionString: url, options: STORE_SETTINGS };
  }
  const given = parsed.searchParams.get("options");
  if (given === null) return { connectionString: url, options: STORE_SETTINGS };
  parsed.searchParams.delete("options");
  return { connectionString: parsed.toString(), options: `${given} ${STORE_SETTINGS}` };
}
