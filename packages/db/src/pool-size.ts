import { availableParallelism } from "node:os";

/**
 * Connections in an instance's shared pool when the operator sets none: twice the cores, at least 10
 * and at most 40. A revision is one statement (one round trip), so a connection is held only while
 * Postgres executes and flushes it; about two in flight per core keeps a server of the same size
 * busy without queueing behind its own locks. 2 cores → 10 (the figure the bench was tuned on);
 * 32 cores → 40, which with two instances, LISTEN and lease connections stays under Postgres's
 * default `max_connections` of 100. Override with `pool_size` (`PARLEY_DB_POOL_SIZE` in the API).
 */
export function defaultPoolSize(cores: number = availableParallelism()): number {
  return Math.min(40, Math.max(10, cores * 2));
}
