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
