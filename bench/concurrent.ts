import { collectGarbage } from "./lib/collect-garbage.js";
import { type ParleyStack, startParleyStack } from "./lib/parley-stack.js";
import { PostgresCounters } from "./lib/postgres-counters.js";
import { type Figure, latencyFigure, valueFigure } from "./lib/report.js";
import { APPROVE } from "./lib/session-watch.js";
import { now, summarize } from "./lib/stats.js";
import type { SuiteContext } from "./lib/suite.js";
import { createWaitingSessions, type WaitingSession } from "./lib/waiting-sessions.js";

/** Answers every waiting session at once, spread over `clients` SDK clients; returns per-session times. */
async function answerAll(stack: ParleyStack, waiting: WaitingSession[], clientCount: number) {
  const clients = Array.from({ length: clientCount }, () => stack.client());
  const startedAt = now();
  const resumed = Promise.all(waiting.map((entry) => stack.probe.waitResumed(entry.key)));
  await Promise.all(
    waiting.map((entry, index) =>
      (clients[index % clientCount] ?? clients[0])
        ?.session(entry.session_id)
        .respond({ interaction_id: entry.interaction_id, response: APPROVE }),
    ),
  );
  const allAnsweredAt = now();
  await resumed;
  const perSession = waiting.map((entry) => {
    const resumedAt = stack.probe.times.get(entry.key)?.resumed_at;
    if (resumedAt === undefined) throw new Error(`tool ${entry.key} did not resume`);
    return resumedAt - startedAt;
  });
  const lastResumedAt = startedAt + Math.max(...perSession);
  return { startedAt, allAnsweredAt, lastResumedAt, perSession };
}

/**
 * `concurrent_resumes` (sessions answered at once), respond throughput with `respond_burst_sessions`
 * sessions waiting, and the memory a waiting session costs the API process.
 */
export async function measureConcurrency(context: SuiteContext): Promise<Figure[]> {
  const { scale } = context;
  const stack = await startParleyStack({ serverUrl: context.serverUrl, port: context.nextPort() });
  const client = stack.client();
  const figures: Figure[] = [];
  try {
    const burst = await createWaitingSessions(stack, client, "burst", scale.concurrent_resumes);
    const burstResult = await answerAll(stack, burst, 1);
    const burstSeconds = (burstResult.lastResumedAt - burstResult.startedAt) / 1000;
    figures.push(
      valueFigure("concurrent_resumes_per_s", "1/s", burst.length / burstSeconds, burst.length, {
        floor: "floor_pg_txn_notify_per_s",
        note: `${burst.length} sessions answered at once (one client) → every tool resumed`,
      }),
      latencyFigure("concurrent_resume_ms", summarize(burstResult.perSession), {
        floor: "floor_pg_txn_notify_ms",
        note: `respond burst of ${burst.length} → each tool resumed`,
      }),
    );

    collectGarbage();
    const before = process.memoryUsage();
    const waiting = await createWaitingSessions(stack, client, "wait", scale.respond_burst_sessions);
    collectGarbage();
    const after = process.memoryUsage();
    figures.push(
      valueFigure(
        "memory_per_waiting_session_kib",
        "KiB",
        (after.heapUsed - before.heapUsed) / 1024 / waiting.length,
        waiting.length,
        {
          note: `JS heap growth of the API process (server + SDK handles) per waiting session; rss grew ${((after.rss - before.rss) / 2 ** 20).toFixed(1)} MiB`,
        },
      ),
    );

    const clientCount = 10;
    const counters = await PostgresCounters.open(context.serverUrl, stack.scratch.name);
    await counters.resetStatements();
    const result = await answerAll(stack, waiting, clientCount);
    context.record("respond_burst_top_statements", await counters.topStatements());
    await counters.close();
    const answerSeconds = (result.allAnsweredAt - result.startedAt) / 1000;
    const resumeSeconds = (result.lastResumedAt - result.startedAt) / 1000;
    figures.push(
      valueFigure("respond_throughput_per_s", "1/s", waiting.length / answerSeconds, waiting.length, {
        floor: "floor_pg_txn_notify_per_s",
        note: `${waiting.length} sessions waiting, all answered at once from ${clientCount} clients: answers acknowledged per second`,
      }),
      valueFigure("respond_resumed_throughput_per_s", "1/s", waiting.length / resumeSeconds, waiting.length, {
        floor: "floor_pg_txn_notify_per_s",
        note: "same burst: tools resumed per second",
      }),
      latencyFigure("respond_under_load_resumed_ms", summarize(result.perSession), {
        floor: "floor_pg_txn_notify_ms",
        note: `burst of ${waiting.length} answers → each tool resumed`,
      }),
    );
    return figures;
  } finally {
    await stack.close();
  }
}
