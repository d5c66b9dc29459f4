import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@prisma/client";
import type pg from "pg";

/**
 * The Prisma client over an existing `pg.Pool` (driver adapter, Wasm query compiler: no native
 * engine). The pool stays the caller's: `$disconnect()` does not end it.
 */
export function createPrismaClient(pool: pg.Pool): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg(pool) });
}

/**
 * Options of every interactive transaction. `maxWait` bounds the wait for a pool connection (plus
 * BEGIN): under a burst (1,000 answers at once on a pool of 10) commits queue in the pool for
 * seconds, and an answer must wait its turn rather than fail, so it is generous. `timeout` bounds a
 * started transaction, which holds the session row lock: a revision is at most three statements
 * (waiting for that row lock under contention included), so 15 s only cuts off a stuck one.
 */
export const TRANSACTION_OPTIONS = { maxWait: 30_000, timeout: 15_000 } as const;
