import { startParleyStack } from "./lib/parley-stack.js";
import { PostgresCounters } from "./lib/postgres-counters.js";
import { type Figure, latencyFigure, valueFigure } from "./lib/report.js";
import { APPROVE, pendingInteractionId, SessionWatch } from "./lib/session-watch.js";
import { now, summarize } from "./lib/stats.js";
import type { SuiteContext } from "./lib/suite.js";

/**
 * The single approval cycle of DESIGN.md §8, run `cycle_runs` times in a row, each in a new session:
 * a client (its own WebSocket) subscribes; `prompt("approve <key>")`; the bench tool calls
 * `approval.request`; the client sees `waiting-user` and at once answers with `respond`; the tool
 * continues; the Turn finishes. Times are taken inside the tool and at the client, in one process
 * and on one clock. WAL and statement counts span prompt → Turn finished.
 */
export async function measureCycle(context: SuiteContext): Promise<Figure[]> {
  const stack = await startParleyStack({ serverUrl: context.serverUrl, port: context.nextPort() });
  const counters = await PostgresCounters.open(context.serverUrl, stack.scratch.name);
  const client = stack.client();
  const pendingVisible: number[] = [];
  const respondToRunningVisible: number[] = [];
  const respondToResumed: number[] = [];
  const cycle: number[] = [];
  const walBytes: number[] = [];
  const statements: number[] = [];
  const commits: number[] = [];
  let gapped = 0;
  try {
    const warmups = 5;
    for (let run = 0; run < context.scale.cycle_runs + warmups; run++) {
      const key = `cycle${run}`;
      const session = await client.sessions.create({ title: key });
      const watch = new SessionWatch();
      const unsubscribe = session.subscribe(watch.onMutation, { after_event_id: 0 });
      const pending = watch.waitForToolState("bench_approve", "waiting-user");
      const running = watch.waitForToolState("bench_approve", "running");
      const finished = watch.waitForTurnFinish();

      const before = await counters.snapshot();
      await session.prompt(`approve ${key}`);
      const seen = await pending;
      const respondSentAt = now();
      await session.respond({ interaction_id: pendingInteractionId(seen.mutation), response: APPROVE });
      await stack.probe.waitResumed(key);
      const runningSeen = await running;
      await finished;
      const after = await counters.snapshot();
      unsubscribe();

      const times = stack.probe.times.get(key);
      if (!times?.resumed_at) throw new Error(`tool ${key} never resumed`);
      stack.probe.forget(key);
      if (!watch.isGapFree()) gapped++;
      if (run < warmups) continue;
      pendingVisible.push(seen.at - times.requested_at);
      respondToRunningVisible.push(runningSeen.at - respondSentAt);
      respondToResumed.push(times.resumed_at - respondSentAt);
      cycle.push(times.resumed_at - times.requested_at);
      walBytes.push(await counters.walBytesBetween(before, after));
      statements.push(after.statements - before.statements);
      commits.push(after.commits - before.commits);
    }
    if (gapped > 0) throw new Error(`${gapped} sessions saw an event id gap or duplicate`);

    const pgFloor = { floor: "floor_pg_txn_notify_ms" };
    const figures: Figure[] = [
      latencyFigure("pending_visible_ms", summarize(pendingVisible), {
        ...pgFloor,
        note: "tool calls approval.request → waiting-user mutation at a WebSocket client",
      }),
      latencyFigure("respond_running_visible_ms", summarize(respondToRunningVisible), {
        ...pgFloor,
        note: "respond() sent → tool running mutation at the client",
      }),
      latencyFigure("respond_resumed_ms", summarize(respondToResumed), {
        ...pgFloor,
        note: "respond() sent → the tool's execute continues",
      }),
      latencyFigure("approval_cycle_ms", summarize(cycle), {
        ...pgFloor,
        note: "tool asks → pending at another client → respond → tool resumed (zero-latency model)",
      }),
    ];
    const walNote = context.privateServer
      ? "pg_current_wal_lsn() difference, prompt → Turn finished, private server"
      : "pg_current_wal_lsn() difference on a SHARED server: includes other clients' writes";
    figures.push(latencyToValue("wal_bytes_per_cycle", "bytes", walBytes, walNote));
    if (counters.hasStatements) {
      figures.push(
        latencyToValue(
          "statements_per_cycle",
          "count",
          statements,
          "pg_stat_statements calls in the bench database, prompt → Turn finished",
        ),
        latencyToValue(
          "commits_per_cycle",
          "count",
          commits,
          "COMMIT statements counted by pg_stat_statements",
        ),
      );
    }
    return figures;
  } finally {
    await counters.close();
    await stack.close();
  }
}

/** A per-cycle quantity reported by its median (p50/p99 kept for the spread). */
function latencyToValue(name: string, unit: string, samples: number[], note: string): Figure {
  const distribution = summarize(samples);
  return valueFigure(name, unit, distribution.p50, distribution.n, {
    p50: distribution.p50,
    p99: distribution.p99,
    note,
  });
}
