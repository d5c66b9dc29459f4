/**
 * The bench's one rule for summarising samples, used by every suite and script. Percentiles are
 * **nearest-rank**: the p-th percentile of n sorted samples is the sample of rank ⌈p·n⌉ (1-based),
 * never an interpolation between two samples, so every reported p50/p99 is a time that was really
 * measured. With fewer than 100 samples p99 is therefore the maximum.
 */

/** Distribution of one figure's samples (percentiles by nearest rank). */
export interface Distribution {
  n: number;
  p50: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

/** The nearest-rank percentile of samples sorted ascending; `fraction` in (0, 1]. */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) throw new Error("percentile of no samples");
  const rank = Math.max(1, Math.ceil(fraction * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] as number;
}

export function summarize(samples: readonly number[]): Distribution {
  const sorted = [...samples].sort((left, right) => left - right);
  const total = sorted.reduce((sum, value) => sum + value, 0);
  return {
    n: sorted.length,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    mean: total / sorted.length,
    min: sorted[0] as number,
    max: sorted[sorted.length - 1] as number,
  };
}

/** `summarize` of millisecond samples as the standalone scripts print it: µs-rounded, `_ms` keys. */
export function summarizeMs(samples: readonly number[]) {
  const { n, mean, p50, p99 } = summarize(samples);
  const round = (value: number) => Math.round(value * 1000) / 1000;
  return { n, mean_ms: round(mean), p50_ms: round(p50), p99_ms: round(p99) };
}

/** Milliseconds since an arbitrary origin, sub-millisecond resolution, monotonic. */
export function now(): number {
  return performance.now();
}

/**
 * Runs `action` `warmups` times untimed, then `runs` times one after another, timing each run.
 * `action` gets the call's index (0, 1, … across warmups and runs), for a key no other call uses.
 * `idle_ms`: each timed run starts after that long without work (untimed).
 */
export async function timeRuns(
  counts: { runs: number; warmups: number },
  action: (index: number) => Promise<unknown>,
  idle_ms = 0,
): Promise<Distribution> {
  for (let index = 0; index < counts.warmups; index++) await action(index);
  const samples: number[] = [];
  for (let run = 0; run < counts.runs; run++) {
    if (idle_ms > 0) await new Promise((resolve) => setTimeout(resolve, idle_ms));
    const started = now();
    await action(counts.warmups + run);
    samples.push(now() - started);
  }
  return summarize(samples);
}

/**
 * Rejects when `promise` has not settled within `ms`. Every wait of the bench goes through it: a
 * figure that never arrives must fail the suite with its name, not hang or let Node exit quietly.
 */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** How long any single wait of the bench may take before the suite fails (BENCH_WAIT_MS). */
export const WAIT_MS = Number(process.env.BENCH_WAIT_MS ?? 300_000);
