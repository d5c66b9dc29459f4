const REJECTION = /parley_commit_rejected:([a-z_]+)(?::(-?\d+))?/;

/**
 * The reason (and its number, e.g. the current epoch) of a `parley_reject_commit` one of the store's
 * statements raised (the SQL function of migration `20261202170000_perf_commit_path`); null for any
 * other error.
 */
export function rejectionOf(error: unknown): { reason: string; detail: string | undefined } | null {
  const match = error instanceof Error ? REJECTION.exec(error.message) : null;
  return match?.[1] === undefined ? null : { reason: match[1], detail: match[2] };
}
