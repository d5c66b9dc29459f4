import { issueTokenInDatabase } from "@parley/api/testing";
import { migrateDatabase } from "@parley/db";
import { createScratchDatabase } from "@parley/db/testing";
import { createParleyClient, type ParleyClient } from "@parley/sdk";
import { type BuiltApiProcess, startBuiltApi } from "./lib/built-api-process.js";
import { type IdleSeed, seedIdleSessions } from "./lib/idle-seed.js";
import { type IdleWindow, LIVENESS_PASS, measureIdleWindow } from "./lib/idle-window.js";
import { type Figure, latencyFigure, valueFigure } from "./lib/report.js";
import { APPROVE, SessionWatch } from "./lib/session-watch.js";
import { type Distribution, now, summarize, WAIT_MS, within } from "./lib/stats.js";
import type { SuiteContext } from "./lib/suite.js";
import { spread, type WaitingSession } from "./lib/waiting-sessions.js";

/** The small size every other size's answer → resumed is compared with. */
const FEW = 10;
/** Copies checked through the API before the window (the template is checked by its seeding). */
const CHECKED_THROUGH_API = 3;

interface IdleCase {
  /** Figure-name prefix. */
  name: string;
  sessions: number;
  queued: boolean;
}

interface IdleResult {
  case: IdleCase;
  seed: Omit<IdleSeed, "sessions">;
  window: IdleWindow;
  answers: Distribution;
}

/** Through the API: a copy is a running Turn waiting on its one approval (and its queued prompt). */
async function checkThroughApi(client: ParleyClient, entry: WaitingSession, queued: boolean): Promise<void> {
  const session = client.session(entry.session_id);
  const status = await session.status();
  const pending = await session.interactions();
  const prompts = await session.queuedPrompts();
  const seen = `state ${status.state}, pending ${pending.map((item) => item.interaction_id).join(",")}, ${prompts.length} queued`;
  if (
    status.state !== "running" ||
    status.active_turn_id === undefined ||
    pending.length !== 1 ||
    pending[0]?.interaction_id !== entry.interaction_id ||
    prompts.length !== (queued ? 1 : 0)
  )
    throw new Error(`session ${entry.session_id} is not waiting as seeded: ${seen}`);
}

/**
 * Answers `entries` one at a time; each sample is respond() sent → the tool part's first mutation
 * past `waiting-user` at a subscribed client. Waits for each Turn to finish before the next answer.
 */
async function timeAnswers(client: ParleyClient, entries: WaitingSession[]): Promise<number[]> {
  const samples: number[] = [];
  for (const entry of entries) {
    const session = client.session(entry.session_id);
    const watch = new SessionWatch();
    let unsubscribe = () => {};
    await within(
      new Promise<void>((resolve, reject) => {
        unsubscribe = session.subscribe(watch.onMutation, { onStarted: () => resolve(), onError: reject });
      }),
      WAIT_MS,
      `subscription to ${entry.session_id}`,
    );
    try {
      const resumed = watch.waitFor(
        (mutation) =>
          mutation.variant === "part" &&
          mutation.part.type === "tool" &&
          ["running", "completed", "failed"].includes(mutation.part.state),
      );
      const finished = watch.waitForTurnFinish();
      const startedAt = now();
      await session.respond({ interaction_id: entry.interaction_id, response: APPROVE });
      samples.push((await resumed).at - startedAt);
      await finished;
    } finally {
      unsubscribe();
    }
  }
  return samples;
}

/**
 * One case: `sessions` waiting in a fresh database, the API restarted cold, left alone to settle,
 * then one idle window measured, then answers timed.
 */
async function measureCase(context: SuiteContext, idleCase: IdleCase): Promise<IdleResult> {
  const { scale } = context;
  const scratch = await createScratchDatabase(context.serverUrl, "parley_bench_idle");
  try {
    await migrateDatabase(scratch.url);
    const { token } = await issueTokenInDatabase({ database_url: scratch.url, user: "bench", role: "admin" });
    const { sessions, ...seed } = await seedIdleSessions({
      databaseUrl: scratch.url,
      token,
      port: context.nextPort(),
      count: idleCase.sessions,
      queued: idleCase.queued,
      log: context.log,
    });
    let api: BuiltApiProcess | undefined;
    try {
      api = await startBuiltApi({ database_url: scratch.url, port: context.nextPort() });
      const checker = createParleyClient({ url: api.url, token });
      try {
        for (const entry of spread(sessions.slice(1), CHECKED_THROUGH_API))
          await checkThroughApi(checker, entry, idleCase.queued);
      } finally {
        await checker.close();
      }
      context.log(
        `${idleCase.name}: API restarted; settling ${scale.idle_settle_s} s, then idle ${scale.idle_window_s} s`,
      );
      await new Promise((resolve) => setTimeout(resolve, scale.idle_settle_s * 1000));
      const window = await measureIdleWindow({
        serverUrl: context.serverUrl,
        database: scratch.name,
        api_pid: api.pid,
        seconds: scale.idle_window_s,
      });
      context.log(
        `${idleCase.name}: API ${window.api_cpu_pct.toFixed(2)} %, Postgres ${window.postgres_cpu_pct.toFixed(2)} %, ${window.transactions_per_s.toFixed(2)} tx/s (heartbeat and liveness pass ${window.heartbeat_transactions_per_s.toFixed(2)}), ${window.rows_read_per_s.toFixed(0)} rows/s, ${window.processes_started} processes started and ${window.processes_ended} ended during the window`,
      );
      const answerer = createParleyClient({ url: api.url, token });
      try {
        const answered = spread(sessions, Math.min(scale.idle_timed_answers, sessions.length));
        const answers = summarize(await timeAnswers(answerer, answered));
        return { case: idleCase, seed, window, answers };
      } finally {
        await answerer.close();
      }
    } catch (error) {
      if (api) context.log(`API output:\n${api.output().slice(-4000)}`);
      throw error;
    } finally {
      await api?.stop();
    }
  } finally {
    await scratch.drop();
  }
}

/** The liveness pass's transactions/s in the window (NaN without `pg_stat_statements`). */
function livenessPassRate(window: IdleWindow): number {
  if (window.statements.length === 0) return Number.NaN;
  const pass = window.statements.find((statement) => statement.heartbeat === LIVENESS_PASS);
  return pass?.heartbeat_transactions_per_s ?? 0;
}

function figuresOf(result: IdleResult, few: IdleResult): Figure[] {
  const { name, sessions, queued } = result.case;
  const { window } = result;
  const what = `${sessions} Sessions waiting for an approval${queued ? ", each with a queued prompt" : ""}, API restarted, ${window.seconds.toFixed(0)} s at rest`;
  const figures = [
    valueFigure(`${name}_api_cpu_pct`, "% core", window.api_cpu_pct, sessions, {
      note: `${what}: API process CPU (/proc, all threads and children); goal under 1`,
    }),
    valueFigure(`${name}_postgres_cpu_pct`, "% core", window.postgres_cpu_pct, sessions, {
      note: `${what}: Postgres CPU (/proc: postmaster, background processes, this database's backends); goal under 1`,
    }),
    valueFigure(`${name}_tx_per_s`, "1/s", window.transactions_per_s, sessions, {
      note: `${what}: transactions (pg_stat_database), of which heartbeat and liveness pass ${window.heartbeat_transactions_per_s.toFixed(2)}/s`,
    }),
    valueFigure(
      `${name}_tx_beyond_heartbeat_per_s`,
      "1/s",
      window.transactions_per_s - window.heartbeat_transactions_per_s,
      sessions,
      {
        note: `${what}: transactions other than the LISTEN and lease heartbeats and the liveness pass; goal under 1`,
      },
    ),
    valueFigure(`${name}_liveness_pass_tx_per_s`, "1/s", livenessPassRate(window), sessions, {
      note: `${what}: transactions of the liveness pass (recover(): dead holders, orphaned commands; pg_stat_statements)`,
    }),
    valueFigure(`${name}_rows_read_per_s`, "1/s", window.rows_read_per_s, sessions, {
      note: `${what}: tup_returned + tup_fetched (pg_stat_database)`,
    }),
    valueFigure(`${name}_api_rss_mib`, "MiB", window.api_rss_mib, sessions, {
      note: `${what}: API process RSS at the window's end`,
    }),
    latencyFigure(`${name}_respond_resumed_ms`, result.answers, {
      floor: "floor_pg_txn_notify_ms",
      note: `${sessions} waiting, after the idle window: respond() → the tool part past waiting-user at a subscribed client, one answer at a time`,
    }),
  ];
  if (result !== few) {
    figures.push(
      valueFigure(`${name}_respond_resumed_vs_few`, "×", result.answers.p50 / few.answers.p50, sessions, {
        note: `p50 answer → resumed with ${sessions} waiting ÷ with ${few.case.sessions}; goal within 1.5`,
      }),
    );
  }
  return figures;
}

/**
 * `idle_waiting` (DESIGN §10.7 "Cost at rest"): what an API process and Postgres cost while Sessions
 * wait and nobody uses them. For 10, `idle_sessions` (100,000 at full scale) and
 * `idle_queued_sessions` (1,000, each with a queued prompt) waiting Sessions: seeded (one through a
 * real API process, the rest copied in SQL), the API (`node apps/api/dist/main.js`, as `npm run
 * start:api` runs it) restarted cold, left to settle, then CPU, transactions and rows read over a
 * fixed window, then answer → resumed compared with the 10-session case.
 */
export async function measureIdleWaiting(context: SuiteContext): Promise<Figure[]> {
  const { scale } = context;
  const cases: IdleCase[] = [
    { name: "idle_few", sessions: FEW, queued: false },
    { name: "idle_waiting", sessions: scale.idle_sessions, queued: false },
    { name: "idle_queued", sessions: scale.idle_queued_sessions, queued: true },
  ];
  const results: IdleResult[] = [];
  for (const idleCase of cases) results.push(await measureCase(context, idleCase));
  context.record(
    "idle_waiting",
    results.map((result) => ({
      ...result.case,
      seed: result.seed,
      window: result.window,
      answers: result.answers,
    })),
  );
  const [few] = results;
  if (!few) throw new Error("no idle case ran");
  return results.flatMap((result) => figuresOf(result, few));
}
