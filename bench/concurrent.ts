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

/** One burst's resumes/s (`names.rate`) and latency to each tool resumed (`names.latency`). */
function burstFigures(
  names: { rate: string; latency: string },
  result: Awaited<ReturnType<typeof answerAll>>,
  sessions: number,
  kind: string,
): Figure[] {
  const seconds = (result.lastResumedAt - result.startedAt) / 1000;
  return [
    valueFigure(names.rate, "1/s", sessions / seconds, sessions, {
      floor: "floor_pg_txn_notify_per_s",
      note: `${sessions} sessions answered at once (one client) → every tool resumed; ${kind}`,
    }),
    latencyFigure(names.latency, summarize(result.perSession), {
      floor: "floor_pg_txn_notify_ms",
      note: `respond burst of ${sessions} → each tool resumed; ${kind}`,
    }),
  ];
}

/** The two bursts of `concurrent_resumes` answers, in this order (see `measureConcurrency`). */
const BURSTS = [
  {
    tag: "cold",
    names: { rate: "concurrent_resumes_cold_per_s", latency: "concurrent_resume_cold_ms" },
    kind: "the stack's first answers (statements not yet planned on its connections)",
  },
  {
    tag: "burst",
    names: { rate: "concurrent_resumes_per_s", latency: "concurrent_resume_ms" },
    kind: "after one such burst (warm connections, as the peer's)",
  },
];

/**
 * `concurrent_resumes` (sessions answered at once), respond throughput with `respond_burst_sessions`
 * sessions waiting, and the memory a waiting session costs the API process.
 *
 * Two bursts of `concurrent_resumes` answers: the first on the stack just started, whose pool has
 * never run an answer (each connection parses the answer's statements and plans them), reported as
 * `concurrent_resumes_cold_*`; the second on the same stack once warm, reported as
 * `concurrent_resumes_*` and compared with the peer, whose burst runs on a pool that has run its
 * statements in 205 cycles and 50 interrupts before (docs/performance.md#the-burst-of-50-answers-cold-and-warm).
 */
export async function measureConcurrency(context: SuiteContext): Promise<Figure[]> {
  const { scale } = context;
  const stack = await startParleyStack({ serverUrl: context.serverUrl, port: context.nextPort() });
  const client = stack.client();
  const figures: Figure[] = [];
  try {
    for (const burst of BURSTS) {
      const waiting = await createWaitingSessions(stack, client, burst.tag, scale.concurrent_resumes);
      figures.push(
        ...burstFigures(burst.names, await answerAll(stack, waiting, 1), waiting.length, burst.kind),
      );
    }

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
