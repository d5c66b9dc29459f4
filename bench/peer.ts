import { HumanMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { createScratchDatabase } from "@parley/db/testing";
import pg from "pg";
import { PostgresCounters } from "./lib/postgres-counters.js";
import { type Figure, latencyFigure, valueFigure } from "./lib/report.js";
import { now, summarize } from "./lib/stats.js";
import type { SuiteContext } from "./lib/suite.js";
import { buildApprovalGraph, PEER_POOL_MAX, sideEffects } from "./peer/approval-graph.js";

const WARMUP = 5;

const configOf = (thread_id: string) => ({ configurable: { thread_id } });
const prompt = () => ({ messages: [new HumanMessage("Please increment the counter by 1.")] });
const approve = () =>
  new Command<{ decision: string }, Record<string, never>, "agent" | "tools">({
    resume: { decision: "approved" },
  });

function hasApprovalInterrupt(result: unknown): boolean {
  const interrupts = (result as { __interrupt__?: { value?: { type?: string } }[] }).__interrupt__;
  return interrupts?.length === 1 && interrupts[0]?.value?.type === "approval_request";
}

/**
 * The peer in the same run: LangGraph JS + PostgresSaver doing the same approval
 * cycle (`interrupt()` → `Command({ resume })`) on the same Postgres server, in its own scratch
 * database, with the same counters as Parley's cycle. Figures are named `peer_<parley figure>` so
 * that `comparePeer` can put them side by side.
 */
export async function measurePeer(context: SuiteContext): Promise<Figure[]> {
  const scratch = await createScratchDatabase(context.serverUrl, "peer_bench");
  const pool = new pg.Pool({ connectionString: scratch.url, max: PEER_POOL_MAX });
  const saver = new PostgresSaver(pool);
  const counters = await PostgresCounters.open(context.serverUrl, scratch.name);
  let sequence = 0;
  const newThread = (tag: string) => `${tag}-${++sequence}`;
  try {
    await saver.setup();
    const graph = buildApprovalGraph(saver);

    const cycle = async (thread_id: string) => {
      const asked = now();
      const interrupted = await graph.invoke(prompt(), configOf(thread_id));
      if (!hasApprovalInterrupt(interrupted)) throw new Error(`peer thread ${thread_id} did not interrupt`);
      const answered = now();
      await graph.invoke(approve(), configOf(thread_id));
      const effect = sideEffects.get(thread_id);
      if (effect?.count !== 1)
        throw new Error(`peer thread ${thread_id} ran its tool ${effect?.count ?? 0} times`);
      return { cycle: effect.firstAt - asked, resumed: effect.firstAt - answered };
    };

    const runs = context.scale.cycle_runs;
    const cycles: number[] = [];
    const resumed: number[] = [];
    const walBytes: number[] = [];
    const commits: number[] = [];
    for (let index = 0; index < WARMUP + runs; index += 1) {
      const before = await counters.snapshot();
      const sample = await cycle(newThread("cycle"));
      const after = await counters.snapshot();
      if (index < WARMUP) continue;
      cycles.push(sample.cycle);
      resumed.push(sample.resumed);
      walBytes.push(await counters.walBytesBetween(before, after));
      commits.push(after.next_xid - before.next_xid);
    }

    // 50 (the scale's concurrent_resumes) threads interrupted, then all resumed at once.
    const width = context.scale.concurrent_resumes;
    const threads = Array.from({ length: width }, () => newThread("burst"));
    await Promise.all(threads.map((thread_id) => graph.invoke(prompt(), configOf(thread_id))));
    const startedAt = now();
    await Promise.all(threads.map((thread_id) => graph.invoke(approve(), configOf(thread_id))));
    const perThread = threads.map((thread_id) => {
      const effect = sideEffects.get(thread_id);
      if (effect?.count !== 1)
        throw new Error(`peer thread ${thread_id} ran its tool ${effect?.count ?? 0} times`);
      return effect.firstAt - startedAt;
    });
    const burstSeconds = Math.max(...perThread) / 1000;

    const wal = summarize(walBytes);
    const commitCounts = summarize(commits);
    return [
      latencyFigure("peer_approval_cycle_ms", summarize(cycles), {
        floor: "floor_pg_txn_notify_ms",
        note: "LangGraph + PostgresSaver: invoke → interrupt, then resume → tool code runs",
      }),
      latencyFigure("peer_respond_resumed_ms", summarize(resumed), {
        floor: "floor_pg_txn_notify_ms",
        note: "LangGraph: Command({ resume }) → tool code runs (before its resume is persisted: not exactly-once)",
      }),
      valueFigure("peer_concurrent_resumes_per_s", "1/s", width / burstSeconds, width, {
        floor: "floor_pg_txn_notify_per_s",
        note: `${width} interrupted threads resumed at once, pg.Pool max ${PEER_POOL_MAX}`,
      }),
      latencyFigure("peer_concurrent_resume_ms", summarize(perThread), {
        floor: "floor_pg_txn_notify_ms",
        note: `resume burst of ${width} → each tool code runs`,
      }),
      valueFigure("peer_wal_bytes_per_cycle", "bytes", wal.p50, wal.n, { p50: wal.p50, p99: wal.p99 }),
      valueFigure("peer_commits_per_cycle", "count", commitCounts.p50, commitCounts.n, {
        p50: commitCounts.p50,
        p99: commitCounts.p99,
        note: "durable commits (transaction ids assigned), invoke → resumed tool returned",
      }),
    ];
  } finally {
    await counters.close();
    await saver.end().catch(() => undefined);
    await scratch.drop();
  }
}

/** Parley ÷ LangGraph for each figure both sides measured in this run (below 1: Parley ahead). */
const COMPARED: { figure: string; peer: string; by: "p50" | "p99" | "value"; better: "lower" | "higher" }[] =
  [
    { figure: "approval_cycle_ms", peer: "peer_approval_cycle_ms", by: "p50", better: "lower" },
    { figure: "respond_resumed_ms", peer: "peer_respond_resumed_ms", by: "p50", better: "lower" },
    // Both as libraries in one process (the rows above are Parley over its API: HTTP + WebSocket).
    { figure: "approval_cycle_inprocess_ms", peer: "peer_approval_cycle_ms", by: "p50", better: "lower" },
    { figure: "respond_resumed_inprocess_ms", peer: "peer_respond_resumed_ms", by: "p50", better: "lower" },
    {
      figure: "concurrent_resumes_per_s",
      peer: "peer_concurrent_resumes_per_s",
      by: "value",
      better: "higher",
    },
    { figure: "concurrent_resume_ms", peer: "peer_concurrent_resume_ms", by: "p99", better: "lower" },
    { figure: "commits_per_cycle", peer: "peer_commits_per_cycle", by: "value", better: "lower" },
    { figure: "wal_bytes_per_cycle", peer: "peer_wal_bytes_per_cycle", by: "value", better: "lower" },
    // The load test (`load.ts`): one Parley API instance against the peer's one process.
    { figure: "load_cycles_per_s_1x", peer: "peer_load_cycles_per_s", by: "value", better: "higher" },
    { figure: "load_cycle_ms_1x", peer: "peer_load_cycle_ms", by: "p50", better: "lower" },
    {
      figure: "load_api_cpu_ms_per_cycle_1x",
      peer: "peer_load_cpu_ms_per_cycle",
      by: "value",
      better: "lower",
    },
    {
      figure: "load_postgres_cpu_ms_per_cycle_1x",
      peer: "peer_load_postgres_cpu_ms_per_cycle",
      by: "value",
      better: "lower",
    },
  ];

export interface PeerComparison {
  figure: string;
  by: string;
  parley: number;
  langgraph: number;
  /** Parley ÷ LangGraph. */
  ratio: number;
  parley_ahead: boolean;
}

export function comparePeer(figures: readonly Figure[]): PeerComparison[] {
  const byName = new Map(figures.map((figure) => [figure.name, figure]));
  return COMPARED.flatMap(({ figure, peer, by, better }) => {
    const parley = byName.get(figure)?.[by];
    const langgraph = byName.get(peer)?.[by];
    if (parley === undefined || langgraph === undefined || langgraph === 0) return [];
    const ratio = parley / langgraph;
    return [
      { figure, by, parley, langgraph, ratio, parley_ahead: better === "lower" ? ratio < 1 : ratio > 1 },
    ];
  });
}

export function renderComparison(rows: readonly PeerComparison[]): string {
  if (rows.length === 0) return "";
  const lines = rows.map(
    (row) =>
      `${`${row.figure} (${row.by})`.padEnd(42)} ${row.parley.toFixed(2).padStart(10)} ${row.langgraph.toFixed(2).padStart(10)} ${`${row.ratio.toFixed(2)}×`.padStart(8)}  ${row.parley_ahead ? "Parley ahead" : "LangGraph ahead"}`,
  );
  return [
    `${"Parley ÷ LangGraph".padEnd(42)} ${"Parley".padStart(10)} ${"LangGraph".padStart(10)} ${"ratio".padStart(8)}`,
    ...lines,
  ].join("\n");
}
