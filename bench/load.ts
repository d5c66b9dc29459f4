import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { createParleyClient, type ParleyClient } from "@parley/sdk";
import pg from "pg";
import {
  findPostgresBinaries,
  type PrivatePostgres,
  startPrivatePostgres,
} from "../apps/api/src/faults/private-postgres.js";
import { describeMachine } from "./lib/machine.js";
import { latencyFigure, renderTable, valueFigure, writeReport } from "./lib/report.js";
import { resolveScale } from "./lib/scale.js";
import { APPROVE, pendingInteractionId, SessionWatch } from "./lib/session-watch.js";
import { now, summarize } from "./lib/stats.js";

const PRIVATE_POSTGRES_PORT = 4511;
const SERVER_PORT = 4590;

interface ServerInfo {
  url: string;
  token: string;
  database_url: string;
}

/**
 * `npm run bench -- load`: the API runs in its own process (bench agent: zero-latency model, a
 * tool that asks for approval); `load_sessions` clients, each with its own WebSocket and session,
 * run `load_cycles_per_session` cycles of prompt → approval pending → respond → Turn finished, all
 * at once. Bounded by count and by `load_time_limit_s`. Reports throughput, p50/p99 cycle latency
 * and errors; exits non-zero on any error or on an inconsistency found in the database afterwards.
 */
async function main(): Promise<void> {
  const scale = resolveScale(process.env);
  const started_at = new Date().toISOString();
  let privateServer: PrivatePostgres | null = null;
  let serverUrl = process.env.BENCH_DATABASE_URL;
  if (!serverUrl && findPostgresBinaries()) {
    privateServer = await startPrivatePostgres({
      port: PRIVATE_POSTGRES_PORT,
      settings: { max_connections: "300" },
    });
    serverUrl = privateServer.url();
  }
  serverUrl ??= process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

  const server = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--conditions=parley-source",
      new URL("./bench-server.ts", import.meta.url).pathname,
      serverUrl,
      String(SERVER_PORT),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const clients: ParleyClient[] = [];
  try {
    const info = await new Promise<ServerInfo>((resolve, reject) => {
      server.once("exit", (code) => reject(new Error(`bench server exited with ${code}`)));
      createInterface({ input: server.stdout }).once("line", (line) =>
        resolve(JSON.parse(line) as ServerInfo),
      );
    });
    const deadline = now() + scale.load_time_limit_s * 1000;
    const latencies: number[] = [];
    const errors: string[] = [];
    const sessionIds: string[] = [];
    let timedOut = false;

    const runSession = async (index: number) => {
      const client = createParleyClient({ url: info.url, token: info.token });
      clients.push(client);
      const session = await client.sessions.create({ title: `load${index}` });
      sessionIds.push(session.id);
      const watch = new SessionWatch();
      session.subscribe(watch.onMutation, { after_event_id: 0 });
      for (let cycle = 0; cycle < scale.load_cycles_per_session; cycle++) {
        if (now() > deadline) {
          timedOut = true;
          return;
        }
        try {
          const seenBefore = watch.event_ids[watch.event_ids.length - 1] ?? 0;
          const after = (mutation: { event_id: number }) => mutation.event_id > seenBefore;
          const pending = watch.waitFor(
            (mutation) =>
              after(mutation) &&
              mutation.variant === "part" &&
              mutation.part.type === "tool" &&
              mutation.part.state === "waiting-user",
          );
          const finished = watch.waitFor(
            (mutation) => after(mutation) && mutation.variant === "turn" && mutation.type === "finish",
          );
          const started = now();
          await session.prompt(`approve load${index}x${cycle}`);
          const seen = await pending;
          await session.respond({ interaction_id: pendingInteractionId(seen.mutation), response: APPROVE });
          const finish = await finished;
          if (finish.mutation.variant === "turn" && finish.mutation.status !== "completed") {
            throw new Error(`turn ended ${finish.mutation.status}`);
          }
          latencies.push(now() - started);
        } catch (error) {
          errors.push(error instanceof Error ? error.message : String(error));
        }
      }
      if (!watch.isGapFree()) errors.push(`session ${session.id}: event id gap or duplicate at the client`);
    };

    const startedAt = now();
    await Promise.all(Array.from({ length: scale.load_sessions }, (_, index) => runSession(index)));
    const seconds = (now() - startedAt) / 1000;
    errors.push(...(await checkDatabase(info.database_url, sessionIds, latencies.length)));

    const figures = [
      valueFigure("load_cycles_per_s", "1/s", latencies.length / seconds, latencies.length, {
        note: `${scale.load_sessions} sessions at once × ${scale.load_cycles_per_session} cycles`,
      }),
      latencyFigure("load_cycle_ms", summarize(latencies.length > 0 ? latencies : [Number.NaN]), {
        note: "prompt → approval pending → respond → Turn finished, per cycle",
      }),
      valueFigure("load_errors", "count", errors.length, latencies.length + errors.length),
    ];
    console.log(renderTable(figures));
    const path = writeReport(
      new URL("./results", import.meta.url).pathname,
      {
        started_at,
        finished_at: new Date().toISOString(),
        scale: scale.name,
        machine: await describeMachine(serverUrl),
        figures,
        details: { errors: [...new Set(errors)].slice(0, 50), timed_out: timedOut },
        failures: [],
      },
      "-load",
    );
    console.log(`written: ${path}`);
    console.log(
      `\n${latencies.length} cycles in ${seconds.toFixed(1)} s${timedOut ? " (stopped by the time limit)" : ""}`,
    );
    if (errors.length > 0) {
      console.log(`ERRORS (${errors.length}):\n${[...new Set(errors)].slice(0, 20).join("\n")}`);
      process.exitCode = 1;
    }
  } finally {
    await Promise.all(clients.map((client) => client.close()));
    server.kill("SIGTERM");
    await new Promise((resolve) => server.once("exit", resolve));
    await privateServer?.destroy();
  }
}

/** After the load: every interaction answered exactly once, and every session's event ids 1…n. */
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
      `SELECT session_id FROM session_events WHERE session_id = ANY($1)
        GROUP BY session_id HAVING max(event_id) <> count(*) OR min(event_id) <> 1`,
      [sessionIds],
    );
    for (const row of gaps.rows)
      problems.push(`session ${row.session_id}: event ids not 1…n in session_events`);
    return problems;
  } finally {
    await client.end();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
