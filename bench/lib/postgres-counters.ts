import pg from "pg";

/** Cluster-wide write-ahead-log position and this database's statement counts at one instant. */
export interface CounterSnapshot {
  wal_lsn: string;
  statements: number;
  commits: number;
  /**
   * Calls of statements that send a NOTIFY (`pg_notify`). Parley's bus sends each after its commit,
   * as one autocommit statement of its own, so each is one transaction id of `next_xid`'s count that
   * wrote no data (NaN without `pg_stat_statements`).
   */
  notifies: number;
  /**
   * The cluster's next transaction id. Its difference counts the transactions that were given an
   * id, i.e. every durable commit (a write, or a NOTIFY) whether it was an explicit BEGIN … COMMIT
   * or one autocommit statement; reads are not counted. Cluster-wide, like WAL.
   */
  next_xid: number;
}

/**
 * Reads `pg_current_wal_lsn()` and `pg_stat_statements` for one database, from a connection to a
 * different database (`postgres`), so that the readings themselves are not counted. WAL is
 * cluster-wide: it is only ours when the server is private to the bench. Statement counts need
 * `pg_stat_statements` in `shared_preload_libraries` (the private server has it); otherwise
 * `statements` and `commits` are NaN.
 */
export class PostgresCounters {
  readonly #client: pg.Client;
  readonly #database: string;
  #hasStatements = false;

  private constructor(client: pg.Client, database: string) {
    this.#client = client;
    this.#database = database;
  }

  static async open(serverUrl: string, database: string): Promise<PostgresCounters> {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    const counters = new PostgresCounters(client, database);
    try {
      await client.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      await client.query("SELECT count(*) FROM pg_stat_statements");
      counters.#hasStatements = true;
    } catch {
      counters.#hasStatements = false;
    }
    return counters;
  }

  get hasStatements(): boolean {
    return this.#hasStatements;
  }

  async snapshot(): Promise<CounterSnapshot> {
    const wal = await this.#client.query<{ lsn: string; next_xid: string }>(
      "SELECT pg_current_wal_lsn()::text AS lsn, pg_snapshot_xmax(pg_current_snapshot())::text AS next_xid",
    );
    const lsn = wal.rows[0]?.lsn ?? "0/0";
    const next_xid = Number(wal.rows[0]?.next_xid ?? Number.NaN);
    if (!this.#hasStatements) {
      return { wal_lsn: lsn, statements: Number.NaN, commits: Number.NaN, notifies: Number.NaN, next_xid };
    }
    const counts = await this.#client.query<{
      statements: string | null;
      commits: string | null;
      notifies: string | null;
    }>(
      `SELECT sum(calls)::text AS statements,
              sum(calls) FILTER (WHERE upper(query) LIKE 'COMMIT%')::text AS commits,
              sum(calls) FILTER (WHERE query ILIKE '%pg_notify%')::text AS notifies
         FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1)`,
      [this.#database],
    );
    const row = counts.rows[0];
    return {
      wal_lsn: lsn,
      statements: Number(row?.statements ?? 0),
      commits: Number(row?.commits ?? 0),
      notifies: Number(row?.notifies ?? 0),
      next_xid,
    };
  }

  /** Forgets every statement statistic (cluster-wide), so that a profile covers one suite. */
  async resetStatements(): Promise<void> {
    if (this.#hasStatements) await this.#client.query("SELECT pg_stat_statements_reset()");
  }

  /** The statements of this database that took the most server time since the last reset. */
  async topStatements(
    limit = 12,
  ): Promise<
    { query: string; calls: number; plans: number; total_ms: number; mean_ms: number; mean_plan_ms: number }[]
  > {
    if (!this.#hasStatements) return [];
    const result = await this.#client.query<{
      query: string;
      calls: string;
      plans: string;
      total_ms: number;
      mean_ms: number;
      mean_plan_ms: number;
    }>(
      // Planning is counted only where `pg_stat_statements.track_planning` is on (the private
      // server). `plans` below `calls`: some calls ran a named statement's cached (generic) plan.
      `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 160) AS query, calls::text AS calls,
              plans::text AS plans,
              total_exec_time AS total_ms, mean_exec_time AS mean_ms, mean_plan_time AS mean_plan_ms
         FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1)
        ORDER BY total_exec_time DESC LIMIT $2`,
      [this.#database, limit],
    );
    return result.rows.map((row) => ({
      query: row.query,
      calls: Number(row.calls),
      plans: Number(row.plans),
      total_ms: Number(row.total_ms.toFixed(3)),
      mean_ms: Number(row.mean_ms.toFixed(4)),
      mean_plan_ms: Number(row.mean_plan_ms.toFixed(4)),
    }));
  }

  async walBytesBetween(before: CounterSnapshot, after: CounterSnapshot): Promise<number> {
    const result = await this.#client.query<{ bytes: string }>(
      "SELECT pg_wal_lsn_diff($1, $2)::text AS bytes",
      [after.wal_lsn, before.wal_lsn],
    );
    return Number(result.rows[0]?.bytes ?? Number.NaN);
  }

  async close(): Promise<void> {
    await this.#client.end();
  }
}
