import pg from "pg";
import { cloneWaitingSession } from "./lib/clone-waiting-session.js";
import { collectGarbage } from "./lib/collect-garbage.js";
import { type ParleyStack, startParleyStack } from "./lib/parley-stack.js";
import { type Figure, latencyFigure, valueFigure } from "./lib/report.js";
import { APPROVE } from "./lib/session-watch.js";
import { now, summarize, WAIT_MS } from "./lib/stats.js";
import type { SuiteContext } from "./lib/suite.js";
import { createWaitingSessions, spread, type WaitingSession, waitHostless } from "./lib/waiting-sessions.js";

/** Waiting sessions of the small-size comparison. */
const FEW = 10;
/** Answers timed at each size, one at a time (latency, not throughput). */
const TIMED_ANSWERS = 50;

async function withClient<T>(url: string, action: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await action(client);
  } finally {
    await client.end();
  }
}

/** Advisory locks held in the scratch database, by anyone (a lease is one). */
function advisoryLocks(url: string): Promise<number> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ held: number }>(
      `SELECT count(*)::int AS held FROM pg_locks
        WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    return rows[0]?.held ?? -1;
  });
}

/** Waits until no lease is held: every waiting Turn has parked (it parks after its last commit). */
async function waitParked(url: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const held = await advisoryLocks(url);
    if (held === 0) return;
    if (Date.now() > deadline)
      throw new Error(`${held} advisory locks still held: waiting Turns did not park`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Pending interactions in the scratch database. */
function pendingCount(url: string): Promise<number> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ pending: number }>(
      "SELECT count(*)::int AS pending FROM interactions WHERE status = 'pending'",
    );
    return rows[0]?.pending ?? -1;
  });
}

/** Answers `entries` one at a time; each sample is respond() sent → the tool's execute continued. */
async function timeAnswers(stack: ParleyStack, entries: WaitingSession[]): Promise<number[]> {
  const client = stack.client();
  const samples: number[] = [];
  for (const entry of entries) {
    stack.probe.forget(entry.key);
    const resumed = stack.probe.waitResumed(entry.key);
    const startedAt = now();
    await client
      .session(entry.session_id)
      .respond({ interaction_id: entry.interaction_id, response: APPROVE });
    await resumed;
    const resumedAt = stack.probe.times.get(entry.key)?.resumed_at;
    if (resumedAt === undefined) throw new Error(`tool ${entry.key} did not resume`);
    samples.push(resumedAt - startedAt);
  }
  return samples;
}

/**
 * `waiting_sessions` (a waiting Turn holds nothing: docs/behaviour.md#durability): N Sessions
 * waiting at once for an approval on one API instance. `waiting_runtime_sample` of them (1,000 at
 * full scale) go through the real runtime (prompt → tool → approval → parked); the rest are seeded
 * by copying one of them with SQL (`cloneWaitingSession`), since a parked Turn is nothing but rows.
 * Reports the API process's heap and RSS growth per waiting session, the advisory locks held with N
 * waiting, and respond → resumed p50/p99 with N waiting vs with 10.
 */
export async function measureWaitingSessions(context: SuiteContext): Promise<Figure[]> {
  const total = context.scale.waiting_sessions;
  const stack = await startParleyStack({ serverUrl: context.serverUrl, port: context.nextPort() });
  const url = stack.scratch.url;
  const client = stack.client();
  try {
    const few = await createWaitingSessions(stack, client, "few", FEW);
    await waitParked(url);
    const fewSamples = await timeAnswers(stack, few);
    context.log(`${FEW} waiting: answered one at a time`);

    const sampleSize = Math.min(total, context.scale.waiting_runtime_sample);
    collectGarbage();
    const before = process.memoryUsage();
    const sample = await createWaitingSessions(stack, client, "wait", sampleSize);
    await waitParked(url);
    collectGarbage();
    const afterSample = process.memoryUsage();
    context.log(`${sampleSize} sessions waiting through the runtime`);

    const seededCount = total - sampleSize;
    const template = sample[0];
    if (!template) throw new Error("no waiting session to copy");
    const seeded =
      seededCount === 0
        ? []
        : await cloneWaitingSession(url, template, "seeded", seededCount, (done) =>
            context.log(`seeded ${done} of ${seededCount}`),
          );
    const pending = await pendingCount(url);
    if (pending !== total) throw new Error(`${pending} interactions pending, expected ${total}`);
    collectGarbage();
    const atTotal = process.memoryUsage();
    const locks = await advisoryLocks(url);
    context.log(`${total} sessions waiting (${pending} pending approvals, ${locks} advisory locks)`);

    const timed = [...spread(sample.slice(1), TIMED_ANSWERS / 2), ...spread(seeded, TIMED_ANSWERS / 2)];
    const manySamples = await timeAnswers(stack, timed);
    const left = await pendingCount(url);
    if (left !== total - timed.length)
      throw new Error(`${left} pending after answering, expected ${total - timed.length}`);
    await waitHostless(stack.runtime);

    const perSession = (bytes: number) => bytes / 1024 / sampleSize;
    const runtimeNote = `growth of the API process (in-process server, bench client) over ${sampleSize} sessions left waiting through the runtime`;
    return [
      valueFigure(
        "waiting_heap_per_session_kib",
        "KiB",
        perSession(afterSample.heapUsed - before.heapUsed),
        sampleSize,
        {
          note: `JS heap ${runtimeNote}`,
        },
      ),
      valueFigure(
        "waiting_rss_per_session_kib",
        "KiB",
        perSession(afterSample.rss - before.rss),
        sampleSize,
        {
          note: `RSS ${runtimeNote}`,
        },
      ),
      valueFigure("waiting_heap_at_size_mib", "MiB", (atTotal.heapUsed - before.heapUsed) / 2 ** 20, total, {
        note: `JS heap growth with ${total} sessions waiting (${seededCount} seeded as rows); RSS grew ${((atTotal.rss - before.rss) / 2 ** 20).toFixed(1)} MiB`,
      }),
      valueFigure("waiting_advisory_locks", "locks", locks, total, {
        note: `advisory locks held in the database with ${total} sessions waiting (a lease is one)`,
      }),
      latencyFigure("waiting_respond_resumed_ms", summarize(manySamples), {
        floor: "floor_pg_txn_notify_ms",
        note: `${total} waiting: respond() → the tool continued, one answer at a time (${timed.length} answers, runtime-made and seeded)`,
      }),
      latencyFigure("waiting_few_respond_resumed_ms", summarize(fewSamples), {
        floor: "floor_pg_txn_notify_ms",
        note: `${FEW} waiting: respond() → the tool continued, one answer at a time`,
      }),
    ];
  } finally {
    await stack.close();
  }
}
