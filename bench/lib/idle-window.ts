import { NOTIFY_STATEMENT } from "@parley/db";
import pg from "pg";
import {
  clockTicksPerSecond,
  percentOfCore,
  processTicks,
  processTreeTicks,
  readProcStat,
  residentMib,
  ticksBetween,
} from "./proc-cpu.js";

/**
 * The statements of the liveness mechanism, each by its text as `pg_stat_statements` lists it (cut
 * to the 160 characters `statementsOf` keeps; for the pass, the start of it: the store's statements
 * are named, and a named statement keeps its literals where an unnamed one has `$n`), and the
 * transactions each call costs: what "heartbeat aside" leaves out. The liveness pass is one of
 * them: `…_tx_beyond_heartbeat_per_s` then shows whatever else runs at rest, and the pass's own rate is its row in the statement list, so the
 * report gives both. Nothing else runs at a fixed rate for liveness.
 */
/** How the liveness pass's statement is labelled (`IdleStatement.heartbeat`). */
export const LIVENESS_PASS = "liveness pass (dead holders, orphaned commands)";

const HEARTBEAT_STATEMENTS: Record<string, { what: string; transactions: number; prefix?: true }> = {
  // packages/db event-bus/listen-connection.ts: the LISTEN connection NOTIFYs itself every second,
  // with the bus's notice statement (imported, not copied: a copy went stale once, and the report
  // then counted the heartbeat as work beyond it); at rest nothing else sends a notice. Two
  // transactions: the NOTIFY's, and the one in which the listening backend reads the queue when it
  // is signalled (async.c); one API process has one listening backend.
  [NOTIFY_STATEMENT]: { what: "LISTEN connection heartbeat", transactions: 2 },
  // packages/db leases/postgres-turn-lease-manager.ts: the lease connection is probed every 500 ms
  // while it is open.
  "SELECT $1": { what: "lease connection probe", transactions: 1 },
  // packages/db session-store/work-needing-driver.ts `listWorkNeedingDriver`: `recover()` every
  // PARLEY_RECOVER_INTERVAL_MS (1 s) on every instance, one read in its own transaction.
  "WITH command_sessions AS ( SELECT needy.session_id FROM ( SELECT t.session_id FROM turns t WHERE (t.state =":
    { what: LIVENESS_PASS, transactions: 1, prefix: true },
};

function heartbeatOf(query: string) {
  return Object.entries(HEARTBEAT_STATEMENTS).find(([text, heartbeat]) =>
    heartbeat.prefix ? query.startsWith(text) : query === text,
  )?.[1];
}

/** One statement's share of the window (from `pg_stat_statements`, reset at the window's start). */
export interface IdleStatement {
  query: string;
  calls_per_s: number;
  rows_per_s: number;
  /** Which heartbeat it is, if it is one. */
  heartbeat?: string;
  /** Transactions per second it caused (heartbeats only). */
  heartbeat_transactions_per_s?: number;
}

/** What one API process and its database cost while nobody uses them. */
export interface IdleWindow {
  seconds: number;
  /** Percent of one core: the API process and its children (user + system, every thread). */
  api_cpu_pct: number;
  api_rss_mib: number;
  /**
   * Percent of one core: the postmaster, the cluster's background processes and the backends of
   * this database (not the bench's reading connection, which is on another database). NaN when
   * Postgres does not run on this machine.
   */
  postgres_cpu_pct: number;
  /** `xact_commit + xact_rollback` of this database (`pg_stat_database`). */
  transactions_per_s: number;
  /** Of those, the heartbeat statements' (NaN without `pg_stat_statements`). */
  heartbeat_transactions_per_s: number;
  /** `tup_returned + tup_fetched` of this database. */
  rows_read_per_s: number;
  /** Processes that started or ended during the window (their CPU is partly missing). */
  processes_started: number;
  processes_ended: number;
  /** The statements run in the window, most called first. */
  statements: IdleStatement[];
}

interface DatabaseCounters {
  transactions: number;
  rows_read: number;
}

async function databaseCounters(client: pg.Client, database: string): Promise<DatabaseCounters> {
  // Statistics a backend has not flushed yet are not in the view (up to ~1 s for a busy backend,
  // 10 s for one that went idle): the settle time before the window lets startup's reach it.
  await client.query("SELECT pg_stat_clear_snapshot()");
  const { rows } = await client.query<{ transactions: string; rows_read: string }>(
    `SELECT (xact_commit + xact_rollback)::text AS transactions, (tup_returned + tup_fetched)::text AS rows_read
       FROM pg_stat_database WHERE datname = $1`,
    [database],
  );
  const row = rows[0];
  if (!row) throw new Error(`no pg_stat_database row for ${database}`);
  return { transactions: Number(row.transactions), rows_read: Number(row.rows_read) };
}

/** Postgres processes that serve `database`: its backends, the background processes and the postmaster. */
async function postgresPids(client: pg.Client, database: string, postmaster: number): Promise<number[]> {
  const { rows } = await client.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity
      WHERE (datname = $1 OR datname IS NULL) AND pid <> pg_backend_pid()`,
    [database],
  );
  return [postmaster, ...rows.map((row) => row.pid)];
}

async function hasStatementStatistics(client: pg.Client): Promise<boolean> {
  try {
    await client.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    await client.query("SELECT count(*) FROM pg_stat_statements");
    return true;
  } catch {
    return false;
  }
}

async function statementsOf(client: pg.Client, database: string, seconds: number): Promise<IdleStatement[]> {
  const { rows } = await client.query<{ query: string; calls: string; rows: string }>(
    `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 160) AS query, calls::text AS calls, rows::text AS rows
       FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1)
      ORDER BY calls DESC, query`,
    [database],
  );
  return rows.map((row) => {
    const heartbeat = heartbeatOf(row.query);
    const calls_per_s = Number(row.calls) / seconds;
    return {
      query: row.query,
      calls_per_s,
      rows_per_s: Number(row.rows) / seconds,
      ...(heartbeat === undefined
        ? {}
        : { heartbeat: heartbeat.what, heartbeat_transactions_per_s: calls_per_s * heartbeat.transactions }),
    };
  });
}

/**
 * Measures `seconds` of rest: the API process's CPU and RSS, the Postgres processes' CPU (from
 * /proc), and the database's transactions and rows read (`pg_stat_database`), with the statements
 * behind them (`pg_stat_statements`, reset at the start; cluster-wide, so the bench must not be
 * sharing the server with other work). Reads from a connection to `serverUrl`'s database, so that the
 * readings are not counted as the measured database's.
 */
export async function measureIdleWindow(options: {
  serverUrl: string;
  database: string;
  api_pid: number;
  seconds: number;
}): Promise<IdleWindow> {
  const { database, seconds } = options;
  const client = new pg.Client({ connectionString: options.serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    const postmaster = readProcStat(rows[0]?.pid ?? -1)?.ppid;
    const withStatements = await hasStatementStatistics(client);
    const hz = clockTicksPerSecond();

    const startPids = postmaster === undefined ? [] : await postgresPids(client, database, postmaster);
    const countersBefore = await databaseCounters(client, database);
    if (withStatements) await client.query("SELECT pg_stat_statements_reset()");
    const apiBefore = processTreeTicks([options.api_pid]);
    const postgresBefore = processTicks(startPids);
    const startedAt = performance.now();

    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));

    const apiAfter = processTreeTicks([options.api_pid]);
    const endPids = postmaster === undefined ? [] : await postgresPids(client, database, postmaster);
    const postgresAfter = processTicks(new Set([...startPids, ...endPids]));
    const elapsed = (performance.now() - startedAt) / 1000;
    const countersAfter = await databaseCounters(client, database);
    const statements = withStatements ? await statementsOf(client, database, elapsed) : [];

    if (!apiAfter.has(options.api_pid)) throw new Error("the API process ended during the idle window");
    const api = ticksBetween(apiBefore, apiAfter);
    const postgres = ticksBetween(postgresBefore, postgresAfter);
    const heartbeatTransactions = statements.reduce(
      (sum, statement) => sum + (statement.heartbeat_transactions_per_s ?? 0),
      0,
    );
    return {
      seconds: elapsed,
      api_cpu_pct: percentOfCore(api.ticks, elapsed, hz),
      api_rss_mib: residentMib(options.api_pid),
      postgres_cpu_pct: postmaster === undefined ? Number.NaN : percentOfCore(postgres.ticks, elapsed, hz),
      transactions_per_s: (countersAfter.transactions - countersBefore.transactions) / elapsed,
      heartbeat_transactions_per_s: withStatements ? heartbeatTransactions : Number.NaN,
      rows_read_per_s: (countersAfter.rows_read - countersBefore.rows_read) / elapsed,
      processes_started: api.started + postgres.started,
      processes_ended: api.ended + postgres.ended,
      statements,
    };
  } finally {
    await client.end();
  }
}
