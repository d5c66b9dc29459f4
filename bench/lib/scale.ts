/**
 * How big each measurement is. `full` is the scale the figures in docs/performance.md use (1,000
 * sessions waiting, 100,000 interactions in the inbox …); `small` is a quick
 * run for development. Every size can be overridden alone with `BENCH_<NAME>` (e.g.
 * `BENCH_WAITING_SESSIONS=200`).
 */
export interface BenchScale {
  name: "small" | "full";
  /** Sequential repetitions of each latency figure. */
  floor_runs: number;
  cycle_runs: number;
  /** Connections of the concurrent floor, and its transactions. */
  floor_concurrency: number;
  floor_concurrent_runs: number;
  /** Sessions answered at once for `concurrent_resumes`. */
  concurrent_resumes: number;
  /** Sessions waiting at once, all answered at once: respond throughput (`concurrent`). */
  respond_burst_sessions: number;
  /**
   * Sessions waiting at once on one instance (`waiting_sessions`): memory, advisory locks, and
   * respond → resumed at that size. Up to 1,000 through the runtime, the rest seeded with SQL.
   */
  waiting_sessions: number;
  /** Of those, how many go through the runtime (prompt → approval → parked); the rest are seeded. */
  waiting_runtime_sample: number;
  /**
   * `idle_waiting`: Sessions waiting while the API is at rest, and Sessions waiting each with a
   * queued prompt (besides a fixed 10).
   */
  idle_sessions: number;
  idle_queued_sessions: number;
  /** Seconds left alone after the restart before measuring (pg statistics reach the views late). */
  idle_settle_s: number;
  /** Seconds of rest measured. */
  idle_window_s: number;
  /** Answers timed one at a time after the window, at each size. */
  idle_timed_answers: number;
  inbox_interactions: number;
  inbox_pending: number;
  inbox_query_runs: number;
  recovery_pending: number;
  /** Characters one streamed answer carries, and how many text deltas the model sends for it. */
  stream_characters: number;
  stream_chunks: number;
  stream_runs: number;
  /** API clients streaming at once. */
  streaming_clients: number;
  /** Load test: sessions at once, cycles each, and a time bound in seconds. */
  load_sessions: number;
  load_cycles_per_session: number;
  load_time_limit_s: number;
  /** Races of two answers to one Interaction, one through each of two API instances. */
  race_runs: number;
}

const full: BenchScale = {
  name: "full",
  floor_runs: 500,
  cycle_runs: 200,
  floor_concurrency: 10,
  floor_concurrent_runs: 2000,
  concurrent_resumes: 50,
  respond_burst_sessions: 1000,
  waiting_sessions: 100_000,
  waiting_runtime_sample: 1000,
  idle_sessions: 100_000,
  idle_queued_sessions: 1000,
  idle_settle_s: 11,
  idle_window_s: 20,
  idle_timed_answers: 20,
  inbox_interactions: 100_000,
  inbox_pending: 10_000,
  inbox_query_runs: 50,
  recovery_pending: 1000,
  stream_characters: 20_000,
  stream_chunks: 2000,
  stream_runs: 10,
  streaming_clients: 10,
  load_sessions: 50,
  load_cycles_per_session: 10,
  load_time_limit_s: 120,
  race_runs: 20,
};

const small: BenchScale = {
  name: "small",
  floor_runs: 100,
  cycle_runs: 20,
  floor_concurrency: 10,
  floor_concurrent_runs: 200,
  concurrent_resumes: 10,
  respond_burst_sessions: 100,
  waiting_sessions: 1000,
  waiting_runtime_sample: 100,
  idle_sessions: 1000,
  idle_queued_sessions: 200,
  idle_settle_s: 11,
  idle_window_s: 10,
  idle_timed_answers: 10,
  inbox_interactions: 10_000,
  inbox_pending: 1000,
  inbox_query_runs: 10,
  recovery_pending: 100,
  stream_characters: 5000,
  stream_chunks: 500,
  stream_runs: 3,
  streaming_clients: 3,
  load_sessions: 10,
  load_cycles_per_session: 3,
  load_time_limit_s: 60,
  race_runs: 5,
};

export function resolveScale(env: Record<string, string | undefined>): BenchScale {
  const base = env.BENCH_SCALE === "small" ? small : full;
  const scale: BenchScale = { ...base };
  for (const key of Object.keys(base) as (keyof BenchScale)[]) {
    if (key === "name") continue;
    const override = env[`BENCH_${key.toUpperCase()}`];
    if (override === undefined) continue;
    const value = Number(override);
    if (!Number.isInteger(value) || value <= 0)
      throw new Error(`BENCH_${key.toUpperCase()} must be a positive integer`);
    scale[key] = value;
  }
  return scale;
}
