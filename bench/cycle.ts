import { BENCH_AGENT_ID } from "./lib/bench-agent.js";
import { startMemoryStack } from "./lib/memory-stack.js";
import { type BenchStack, type ParleyStack, startParleyStack } from "./lib/parley-stack.js";
import { PostgresCounters } from "./lib/postgres-counters.js";
import { type Figure, latencyFigure, valueFigure } from "./lib/report.js";
import { APPROVE, pendingInteractionId, SessionWatch, watchNewSession } from "./lib/session-watch.js";
import { now, summarize } from "./lib/stats.js";
import type { SuiteContext } from "./lib/suite.js";
import { walByRelation } from "./lib/wal-by-relation.js";

/** Cycles run before the measured ones (connections, plans and caches warm up). */
const CYCLE_WARMUPS = 5;

interface CycleSamples {
  pendingVisible: number[];
  respondToRunningVisible: number[];
  respondToResumed: number[];
  cycle: number[];
  walBytes: number[];
  statements: number[];
  commits: number[];
  /** Of `commits`: the bus's NOTIFY transactions (each after the commit it announces). */
  notifyCommits: number[];
  /** Of `commits`: the transactions that wrote data (revisions, the queued prompt, the lease). */
  durableCommits: number[];
}

/**
 * `runs` approval cycles in a row, each in a new session: a client (its own WebSocket) subscribes;
 * `prompt("approve <key>")`; the bench tool calls `approval.request`; the client sees
 * `waiting-user` and at once answers with `respond`; the tool continues; the Turn finishes. Times
 * are taken inside the tool and at the client, in one process on one clock. With `counters`, WAL and
 * statements are read around each cycle (prompt → Turn finished).
 */
async function runCycles(
  stack: BenchStack,
  runs: number,
  counters: PostgresCounters | null,
): Promise<CycleSamples> {
  const client = stack.client();
  const samples: CycleSamples = {
    pendingVisible: [],
    respondToRunningVisible: [],
    respondToResumed: [],
    cycle: [],
    walBytes: [],
    statements: [],
    commits: [],
    notifyCommits: [],
    durableCommits: [],
  };
  for (let run = 0; run < runs + CYCLE_WARMUPS; run++) {
    const key = `cycle${run}`;
    const { session, watch, unsubscribe } = await watchNewSession(client, key);
    const pending = watch.waitForToolState("bench_approve", "waiting-user");
    const running = watch.waitForToolState("bench_approve", "running");
    const finished = watch.waitForTurnFinish();

    const before = await counters?.snapshot();
    await session.prompt(`approve ${key}`);
    const seen = await pending;
    const respondSentAt = now();
    await session.respond({ interaction_id: pendingInteractionId(seen.mutation), response: APPROVE });
    await stack.probe.waitResumed(key);
    const runningSeen = await running;
    await finished;
    const after = await counters?.snapshot();
    unsubscribe();

    const times = stack.probe.times.get(key);
    if (!times?.resumed_at) throw new Error(`tool ${key} never resumed`);
    stack.probe.forget(key);
    if (!watch.isGapFree()) throw new Error(`session ${session.id} saw an event id gap or duplicate`);
    if (run < CYCLE_WARMUPS) continue;
    samples.pendingVisible.push(seen.at - times.requested_at);
    samples.respondToRunningVisible.push(runningSeen.at - respondSentAt);
    samples.respondToResumed.push(times.resumed_at - respondSentAt);
    samples.cycle.push(times.resumed_at - times.requested_at);
    if (counters && before && after) {
      samples.walBytes.push(await counters.walBytesBetween(before, after));
      samples.statements.push(after.statements - before.statements);
      const commits = after.next_xid - before.next_xid;
      samples.commits.push(commits);
      if (counters.hasStatements) {
        const notifies = after.notifies - before.notifies;
        samples.notifyCommits.push(notifies);
        samples.durableCommits.push(commits - notifies);
      }
    }
  }
  return samples;
}

/**
 * The same cycle with Parley used as a library, as the peer uses LangGraph: the runtime of the
 * Postgres stack called in this process (no HTTP, no WebSocket client), each cycle in a new
 * session. From `prompt()` to the tool running on after its approval (the peer's window: invoke →
 * interrupt, then resume → tool code), and from `respond()` to the same point.
 */
async function runInProcessCycles(
  stack: ParleyStack,
  runs: number,
): Promise<{ cycle: number[]; respondToResumed: number[] }> {
  const samples = { cycle: [] as number[], respondToResumed: [] as number[] };
  for (let run = 0; run < runs + CYCLE_WARMUPS; run++) {
    const key = `inprocess${run}`;
    const session = await stack.runtime.createSession({
      owner_id: stack.adminUserId,
      agent_id: BENCH_AGENT_ID,
      title: key,
    });
    const watch = new SessionWatch();
    const unsubscribe = session.subscribe(watch.onMutation);
    const pending = watch.waitForToolState("bench_approve", "waiting-user");
    const promptedAt = now();
    const turn = await session.prompt({ query: `approve ${key}` });
    const seen = await pending;
    const respondAt = now();
    await session.respond({ interaction_id: pendingInteractionId(seen.mutation), response: APPROVE });
    await stack.probe.waitResumed(key);
    await turn.finished;
    unsubscribe();
    const resumedAt = stack.probe.times.get(key)?.resumed_at;
    stack.probe.forget(key);
    if (resumedAt === undefined) throw new Error(`tool ${key} never resumed`);
    if (run < CYCLE_WARMUPS) continue;
    samples.cycle.push(resumedAt - promptedAt);
    samples.respondToResumed.push(resumedAt - respondAt);
  }
  return samples;
}

/** A per-cycle quantity reported by its median (p50/p99 kept for the spread). */
function medianFigure(name: string, unit: string, samples: number[], note: string): Figure {
  const distribution = summarize(samples);
  return valueFigure(name, unit, distribution.p50, distribution.n, {
    p50: distribution.p50,
    p99: distribution.p99,
    note,
  });
}

/**
 * One approval cycle (tool asks, pending visible at another client, respond, tool resumed; see
 * docs/performance.md) on the Postgres stack, with WAL and statement counts,
 * then the same cycle on the in-memory stack: the difference is what persistence costs.
 */
export async function measureCycle(context: SuiteContext): Promise<Figure[]> {
  const runs = context.scale.cycle_runs;
  const stack = await startParleyStack({ serverUrl: context.serverUrl, port: context.nextPort() });
  const counters = await PostgresCounters.open(context.serverUrl, stack.scratch.name);
  let samples: CycleSamples;
  let inProcess: { cycle: number[]; respondToResumed: number[] };
  try {
    await counters.resetStatements();
    const walFrom = (await counters.snapshot()).wal_lsn;
    samples = await runCycles(stack, runs, counters);
    const walTo = (await counters.snapshot()).wal_lsn;
    context.record("cycle_top_statements", await counters.topStatements());
    // Warm-up cycles included: the division is by every cycle the window holds.
    const cycles = runs + CYCLE_WARMUPS;
    context.record("cycle_wal_by_relation", await walByRelation(stack.scratch.url, walFrom, walTo, cycles));
    inProcess = await runInProcessCycles(stack, runs);
  } finally {
    await counters.close();
    await stack.close();
  }

  const memoryStack = await startMemoryStack({ port: context.nextPort() });
  let memory: CycleSamples;
  try {
    memory = await runCycles(memoryStack, runs, null);
  } finally {
    await memoryStack.close();
  }

  const pgFloor = { floor: "floor_pg_txn_notify_ms" };
  const figures: Figure[] = [
    latencyFigure("pending_visible_ms", summarize(samples.pendingVisible), {
      ...pgFloor,
      note: "tool calls approval.request → waiting-user mutation at a WebSocket client",
    }),
    latencyFigure("respond_running_visible_ms", summarize(samples.respondToRunningVisible), {
      ...pgFloor,
      note: "respond() sent → tool running mutation at the client",
    }),
    latencyFigure("respond_resumed_ms", summarize(samples.respondToResumed), {
      floor: "floor_respond_resumed_ms",
      note: "respond() sent → the tool's execute continues",
    }),
    latencyFigure("approval_cycle_ms", summarize(samples.cycle), {
      ...pgFloor,
      note: "tool asks → pending at another client → respond → tool resumed (zero-latency model)",
    }),
    medianFigure(
      "wal_bytes_per_cycle",
      "bytes",
      samples.walBytes,
      context.privateServer
        ? "pg_current_wal_lsn() difference, prompt → Turn finished, on the bench's private server"
        : "pg_current_wal_lsn() difference on a SHARED server: includes other clients' writes",
    ),
  ];
  if (counters.hasStatements) {
    figures.push(
      medianFigure(
        "statements_per_cycle",
        "count",
        samples.statements,
        "pg_stat_statements calls in the bench database, prompt → Turn finished",
      ),
    );
  }
  figures.push(
    medianFigure(
      "commits_per_cycle",
      "count",
      samples.commits,
      "durable commits (transaction ids assigned: explicit or autocommit writes and NOTIFYs), prompt → Turn finished",
    ),
  );
  if (counters.hasStatements) {
    figures.push(
      medianFigure(
        "durable_commits_per_cycle",
        "count",
        samples.durableCommits,
        "of commits_per_cycle, the transactions that wrote data: revisions, the queued prompt, the lease (not the NOTIFYs)",
      ),
      medianFigure(
        "notify_commits_per_cycle",
        "count",
        samples.notifyCommits,
        "of commits_per_cycle, the bus's NOTIFY transactions (pg_notify statements, each after its commit)",
      ),
    );
  }
  figures.push(
    latencyFigure("approval_cycle_inprocess_ms", summarize(inProcess.cycle), {
      ...pgFloor,
      note: "Parley as a library on Postgres (runtime called in process, no HTTP/WebSocket): prompt() → pending → respond() → tool resumed; the peer's window",
    }),
    latencyFigure("respond_resumed_inprocess_ms", summarize(inProcess.respondToResumed), {
      floor: "floor_pg_read_commit_idle_ms",
      note: "same, respond() → the tool's execute continues",
    }),
  );
  figures.push(
    latencyFigure("pending_visible_memory_ms", summarize(memory.pendingVisible), {
      floor: "floor_ws_echo_ms",
      note: "same, in-memory store/bus/leases: runtime + tRPC + WebSocket only",
    }),
    latencyFigure("respond_resumed_memory_ms", summarize(memory.respondToResumed), {
      floor: "floor_ws_echo_ms",
      note: "same, in-memory adapters",
    }),
    latencyFigure("approval_cycle_memory_ms", summarize(memory.cycle), {
      floor: "floor_ws_echo_ms",
      note: "same cycle, in-memory adapters",
    }),
  );
  return figures;
}
