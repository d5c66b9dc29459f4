import { migrateDatabase } from "@parley/db";
import { createScratchDatabase, LOG_ENTRIES } from "@parley/db/testing";
import { createParleyClient, type ParleyClient } from "@parley/sdk";
import pg from "pg";
import { BackendCpu } from "./lib/backend-cpu.js";
import { type BenchServerProcess, startBenchServer } from "./lib/bench-server-process.js";
import { runLoadSession } from "./lib/load-session.js";
import { describeMachine } from "./lib/machine.js";
import { runPeerLoad } from "./lib/peer-load.js";
import { PostgresCounters } from "./lib/postgres-counters.js";
import { startBenchPostgresServer } from "./lib/postgres-server.js";
import { type Figure, latencyFigure, renderTable, valueFigure, writeReport } from "./lib/report.js";
import { type BenchScale, resolveScale } from "./lib/scale.js";
import { now, summarize } from "./lib/stats.js";
import { comparePeer, renderComparison } from "./peer.js";

const PRIVATE_POSTGRES_PORT = 4511;
const FIRST_SERVER_PORT = 4590;
const STATEMENT_TRACKING = {
  shared_preload_libraries: "pg_stat_statements",
  "pg_stat_statements.track_planning": "on",
};

/**
 * Environment given to every API instance of the load test, as `KEY=value` pairs separated by
 * spaces in `BENCH_LOAD_SERVER_ENV` (e.g. a bus choice), so that variants reuse this test.
 */
function serverEnv(source: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const pairs = (source.BENCH_LOAD_SERVER_ENV ?? "").split(" ").filter(Boolean);
  return Object.fromEntries(
    pairs.map((pair) => {
      const equals = pair.indexOf("=");
      if (equals <= 0) throw new Error(`BENCH_LOAD_SERVER_ENV: expected KEY=value, got ${pair}`);
      return [pair.slice(0, equals), pair.slice(equals + 1)];
    }),
  );
}

/**
 * `npm run bench -- load`: the API runs in its own process(es) (bench agent: zero-latency model, a
 * tool that asks for approval); `load_sessions` clients, each with its own WebSocket and session,
 * run `load_cycles_per_session` cycles of prompt → approval pending → respond → Turn finished, all
 * at once. It runs once per instance count of `BENCH_LOAD_INSTANCES` (default `1,2`): with n
 * instances on one database, session i talks to instance i mod n (round-robin per client, as an L4
 * balancer assigns connections). Bounded by count and by `load_time_limit_s`. Reports throughput,
 * p50/p99 cycle latency, the API processes' and their database backends' CPU ms per cycle, errors,
 * and the scale-out factor. Then the peer (LangGraph + PostgresSaver) the same way in a process of
 * its own (`lib/peer-load.ts`; `BENCH_LOAD_PEER=0` leaves it out), with Parley ÷ LangGraph ratios.
 * Exits non-zero on any error or on an inconsistency found in the database afterwards.
 */
async function main(): Promise<void> {
  const scale = resolveScale(process.env);
  const started_at = new Date().toISOString();
  const instanceCounts = (process.env.BENCH_LOAD_INSTANCES ?? "1,2").split(",").map(Number);
  if (instanceCounts.some((count) => !Number.isInteger(count) || count < 1)) {
    throw new Error(
      `BENCH_LOAD_INSTANCES must list positive integers, got ${process.env.BENCH_LOAD_INSTANCES}`,
    );
  }
  const env = serverEnv(process.env);
  // `BENCH_LOAD_STATEMENTS=1`: the server tracks statements (as `npm run bench`'s does), and each run
  // reports its top statements; off by default, so that the tracking's own cost stays out of the CPU lines.
  const trackStatements = process.env.BENCH_LOAD_STATEMENTS === "1";
  const postgres = await startBenchPostgresServer({
    port: PRIVATE_POSTGRES_PORT,
    ...(trackStatements ? { settings: STATEMENT_TRACKING } : {}),
  });
  const serverUrl = postgres.url;

  const figures: Figure[] = [];
  const details: Record<string, unknown> = { server_env: env };
  let failed = false;
  try {
    const throughput = new Map<number, number>();
    for (const count of instanceCounts) {
      const run = await runLoad(serverUrl, scale, count, env, trackStatements);
      figures.push(...run.figures);
      details[`instances_${count}`] = {
        errors: run.errors.slice(0, 50),
        timed_out: run.timedOut,
        top_statements: run.topStatements,
      };
      throughput.set(count, run.cyclesPerSecond);
      if (run.errors.length > 0) {
        failed = true;
        console.log(
          `ERRORS with ${count} instance(s) (${run.errors.length}):\n${run.errors.slice(0, 20).join("\n")}`,
        );
      }
    }
    if (process.env.BENCH_LOAD_PEER !== "0") {
      const peer = await runPeerLoad(serverUrl, scale);
      figures.push(...peer.figures);
      details.peer = { errors: peer.errors.slice(0, 50), timed_out: peer.timedOut };
      if (peer.errors.length > 0) {
        failed = true;
        console.log(`ERRORS of the peer (${peer.errors.length}):\n${peer.errors.slice(0, 20).join("\n")}`);
      }
    }
    const single = throughput.get(1);
    for (const [count, perSecond] of throughput) {
      if (count === 1 || single === undefined) continue;
      figures.push(
        valueFigure(`load_scale_out_${count}x`, "×", perSecond / single, count, {
          note: `cycles/s with ${count} instances ÷ with 1 (goal ≥ 1.7× for 2 on loopback)`,
        }),
      );
    }
    console.log(renderTable(figures));
    const comparison = comparePeer(figures);
    details.parley_vs_langgraph = comparison;
    if (comparison.length > 0) console.log(`\n${renderComparison(comparison)}`);
    const path = writeReport(
      {
        started_at,
        finished_at: new Date().toISOString(),
        scale: scale.name,
        machine: await describeMachine(serverUrl),
        figures,
        details,
        failures: [],
      },
      "-load",
    );
    console.log(`written: ${path}`);
    if (failed) process.exitCode = 1;
  } finally {
    await postgres.destroy();
  }
}

/** One load run against `instances` API processes sharing one fresh database. */
async function runLoad(
  serverUrl: string,
  scale: BenchScale,
  instances: number,
  env: NodeJS.ProcessEnv,
  trackStatements: boolean,
) {
  const scratch = await createScratchDatabase(serverUrl, "parley_load");
  await migrateDatabase(scratch.url);
  const servers: BenchServerProcess[] = [];
  const clients: ParleyClient[] = [];
  try {
    for (let index = 0; index < instances; index++) {
      servers.push(
        await startBenchServer({ serverUrl, port: FIRST_SERVER_PORT + index, databaseUrl: scratch.url, env }),
      );
    }
    const deadline = now() + scale.load_time_limit_s * 1000;
    const latencies: number[] = [];
    const errors: string[] = [];
    const sessionIds: string[] = [];
    let timedOut = false;

    const runSession = async (index: number) => {
      const server = servers[index % servers.length];
      if (!server) throw new Error("no instance");
      const client = createParleyClient({ url: server.info.url, token: server.info.token });
      clients.push(client);
      const session = await client.sessions.create({ title: `load${index}` });
      sessionIds.push(session.id);
      const options = { name: `load${index}`, cycles: scale.load_cycles_per_session, deadline };
      if (!(await runLoadSession(session, session, options, { latencies, errors }))) timedOut = true;
    };

    // What the database's CPU per cycle is made of: its statements' server time during the load.
    const counters = trackStatements ? await PostgresCounters.open(serverUrl, scratch.name) : null;
    await counters?.resetStatements();
    const backends = await BackendCpu.start(serverUrl, scratch.name);
    const cpuBefore = servers.map((server) => server.cpuMs());
    const startedAt = now();
    await Promise.all(Array.from({ length: scale.load_sessions }, (_, index) => runSession(index)));
    const seconds = (now() - startedAt) / 1000;
    const cpuMs = servers.reduce((sum, server, index) => sum + server.cpuMs() - (cpuBefore[index] ?? 0), 0);
    const postgres = await backends.stop();
    const topStatements = (await counters?.topStatements(20)) ?? [];
    await counters?.close();
    errors.push(...(await checkDatabase(scratch.url, sessionIds, latencies.length)));
    const cyclesPerSecond = latencies.length / seconds;
    const suffix = `_${instances}x`;
    const figures = [
      valueFigure(`load_cycles_per_s${suffix}`, "1/s", cyclesPerSecond, latencies.length, {
        note: `${instances} instance(s); ${scale.load_sessions} sessions at once × ${scale.load_cycles_per_session} cycles`,
      }),
      latencyFigure(`load_cycle_ms${suffix}`, summarize(latencies.length > 0 ? latencies : [Number.NaN]), {
        note: "prompt → approval pending → respond → Turn finished, per cycle",
      }),
      valueFigure(
        `load_api_cpu_ms_per_cycle${suffix}`,
        "ms",
        cpuMs / Math.max(1, latencies.length),
        latencies.length,
        {
          note: "user + system CPU of all API processes during the load ÷ cycles (/proc, 10 ms ticks)",
        },
      ),
      valueFigure(
        `load_postgres_cpu_ms_per_cycle${suffix}`,
        "ms",
        postgres.cpu_ms / Math.max(1, latencies.length),
        latencies.length,
        {
          note: `CPU of the database's ${postgres.backends} Postgres backends during the load ÷ cycles (/proc, read every 250 ms)`,
        },
      ),
      valueFigure(`load_errors${suffix}`, "count", errors.length, latencies.length + errors.length),
    ];
    console.log(
      `${instances} instance(s): ${latencies.length} cycles in ${seconds.toFixed(1)} s${timedOut ? " (stopped by the time limit)" : ""}`,
    );
    return { figures, errors: [...new Set(errors)], timedOut, cyclesPerSecond, topStatements };
  } finally {
    await Promise.all(clients.map((client) => client.close()));
    for (const server of servers) await server.stop();
    await scratch.drop();
  }
}

/** After the load: every interaction answered exactly once and placed at its message, and every session's event ids 1…n. */
async function checkDatabase(databaseUrl: string, sessionIds: string[], cycles: number): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const problems: string[] = [];
    const statuses = await client.query<{ status: string; count: string }>(
      "SELECT status, count(*)::text AS count FROM interactions WHERE session_id = ANY($1) GROUP BY status",
      [sessionIds],
    );
    const byStatus = Object.fromEntries(statuses.rows.map((row) => [row.status, Number(row.count)]));
    if (byStatus.resolved !== cycles || Object.keys(byStatus).length !== 1) {
      problems.push(`expected ${cycles} resolved interactions, found ${JSON.stringify(byStatus)}`);
    }
    const gaps = await client.query<{ session_id: string }>(
      `SELECT s.session_id FROM ${LOG_ENTRIES} WHERE s.session_id = ANY($1)
        GROUP BY s.session_id HAVING max(e.event_id) <> count(*) OR min(e.event_id) <> 1`,
      [sessionIds],
    );
    for (const row of gaps.rows)
      problems.push(`session ${row.session_id}: event ids not 1…n in session_events`);
    // An answer reads an Interaction's message by (session_id, message_sequence).
    const misplaced = await client.query<{ interaction_id: string }>(
      `SELECT i.interaction_id FROM interactions i
         LEFT JOIN messages m ON m.session_id = i.session_id AND m.message_id = i.message_id
        WHERE i.session_id = ANY($1) AND m.sequence IS DISTINCT FROM i.message_sequence`,
      [sessionIds],
    );
    for (const row of misplaced.rows)
      problems.push(`interaction ${row.interaction_id}: message_sequence is not its message's sequence`);
    return problems;
  } finally {
    await client.end();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
