import { migrateDatabase } from "@parley/db";
import { createScratchDatabase } from "@parley/db/testing";
import { createParleyClient, type ParleyClient } from "@parley/sdk";
import pg from "pg";
import { type BenchServerProcess, startBenchServer } from "./lib/bench-server-process.js";
import { type Figure, latencyFigure } from "./lib/report.js";
import { APPROVE, pendingInteractionId, SessionWatch } from "./lib/session-watch.js";
import { summarize, WAIT_MS, within } from "./lib/stats.js";
import type { SuiteContext } from "./lib/suite.js";

const WARMUP = 2;

/** Wall-clock ms with sub-ms resolution: the API processes stamp the tool's resume on this clock. */
const wallNow = () => performance.timeOrigin + performance.now();

/** When the bench tool continued, per prompt key, as the API processes report it (both of them). */
class ResumeLog {
  readonly #at = new Map<string, number[]>();
  readonly #waiters = new Map<string, (at: number) => void>();

  readonly onLine = (line: unknown): void => {
    const event = line as { resumed?: unknown; at?: unknown };
    if (typeof event.resumed !== "string" || typeof event.at !== "number") return;
    this.#at.set(event.resumed, [...(this.#at.get(event.resumed) ?? []), event.at]);
    this.#waiters.get(event.resumed)?.(event.at);
    this.#waiters.delete(event.resumed);
  };

  firstResumed(key: string): Promise<number> {
    const seen = this.#at.get(key)?.[0];
    if (seen !== undefined) return Promise.resolve(seen);
    return within(
      new Promise((resolve) => this.#waiters.set(key, resolve)),
      WAIT_MS,
      `tool ${key} to resume`,
    );
  }

  count(key: string): number {
    return this.#at.get(key)?.length ?? 0;
  }
}

/** What one race came to: the answers' outcomes, as `winner` or the loser's error code. */
function outcomeOf(result: PromiseSettledResult<unknown>): string {
  if (result.status === "fulfilled") return "winner";
  const error = result.reason as { code?: unknown; message?: unknown };
  return typeof error.code === "string" ? error.code : String(error.message ?? result.reason);
}

/**
 * The race (`npm run bench -- race`): two API processes (`bench-server.ts`) on one database; a
 * session on instance A waits for an approval; the bench sends the same answer through A and
 * through B at once. `race_runs` times: "first answer sent → the tool continued" (p50/p99, the tool
 * stamping its resume in whichever process runs it), and every time exactly one answer won, the
 * other got `interaction_not_pending`, the tool continued once and the Turn completed. Any violation
 * fails the suite (and so the bench run) with the list of what went wrong.
 */
export async function measureRace(context: SuiteContext): Promise<Figure[]> {
  const scratch = await createScratchDatabase(context.serverUrl, "parley_race");
  await migrateDatabase(scratch.url);
  const log = new ResumeLog();
  const servers: BenchServerProcess[] = [];
  const clients: ParleyClient[] = [];
  const violations: string[] = [];
  const samples: number[] = [];
  const keys: string[] = [];
  try {
    for (let index = 0; index < 2; index++) {
      servers.push(
        await startBenchServer({
          serverUrl: context.serverUrl,
          port: context.nextPort(),
          databaseUrl: scratch.url,
          env: { BENCH_PROBE_EVENTS: "1" },
          onLine: log.onLine,
        }),
      );
    }
    for (const server of servers)
      clients.push(createParleyClient({ url: server.info.url, token: server.info.token }));
    const [clientA, clientB] = clients as [ParleyClient, ParleyClient];

    for (let run = 0; run < WARMUP + context.scale.race_runs; run++) {
      const key = `race${run}`;
      keys.push(key);
      const session = await clientA.sessions.create({ title: key });
      const watch = new SessionWatch();
      const unsubscribe = session.subscribe(watch.onMutation, { after_event_id: 0 });
      const pending = watch.waitForToolState("bench_approve", "waiting-user");
      const finished = watch.waitForTurnFinish();
      await session.prompt(`approve ${key}`);
      const interaction_id = pendingInteractionId((await pending).mutation);
      const answer = { interaction_id, response: APPROVE };
      const throughB = clientB.session(session.id);
      const resumed = log.firstResumed(key);
      // Which call leaves first alternates, so that neither instance is always a hair ahead.
      const sentAt = wallNow();
      const settled =
        run % 2 === 0
          ? await Promise.allSettled([session.respond(answer), throughB.respond(answer)])
          : (await Promise.allSettled([throughB.respond(answer), session.respond(answer)])).reverse();
      const resumedAt = await resumed;
      const finish = (await finished).mutation;
      unsubscribe();

      const outcomes = settled.map(outcomeOf).sort();
      if (outcomes.join() !== "interaction_not_pending,winner")
        violations.push(`${key}: answers through A and B came to ${JSON.stringify(settled.map(outcomeOf))}`);
      if (finish.variant === "turn" && finish.status !== "completed")
        violations.push(`${key}: the Turn ended ${finish.status}`);
      if (!watch.isGapFree()) violations.push(`${key}: event id gap or duplicate at the client`);
      if (run >= WARMUP) samples.push(resumedAt - sentAt);
    }
  } finally {
    await Promise.all(clients.map((client) => client.close()));
    // Stopping waits for each process to exit, so every resume it printed has been read.
    for (const server of servers) await server.stop();
  }
  try {
    for (const key of keys) {
      if (log.count(key) !== 1) violations.push(`${key}: the tool continued ${log.count(key)} times`);
    }
    violations.push(...(await checkInteractions(scratch.url, keys.length)));
  } finally {
    await scratch.drop();
  }
  if (violations.length > 0)
    throw new Error(`race: ${violations.length} violation(s):\n${violations.join("\n")}`);
  return [
    latencyFigure("race_respond_resumed_ms", summarize(samples), {
      floor: "floor_pg_txn_notify_ms",
      note: "two API processes, the same answer sent through each at once: first answer sent → the tool continues (once; the other answer got interaction_not_pending)",
    }),
  ];
}

/** Every Interaction of the race resolved, one per race. */
async function checkInteractions(databaseUrl: string, races: number): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const result = await client.query<{ status: string; count: string }>(
      "SELECT status, count(*)::text AS count FROM interactions GROUP BY status",
    );
    const byStatus = Object.fromEntries(result.rows.map((row) => [row.status, Number(row.count)]));
    return byStatus.resolved === races && result.rows.length === 1
      ? []
      : [`expected ${races} resolved interactions, found ${JSON.stringify(byStatus)}`];
  } finally {
    await client.end();
  }
}
