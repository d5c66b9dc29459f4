import { randomBytes } from "node:crypto";
import pg from "pg";
import { quoteIdentifier, withDatabaseName } from "../database-url.js";

/** A database that belongs to its creator alone, on a server shared with others. */
export interface ScratchDatabase {
  name: string;
  /** URL of the database (empty: nothing is migrated into it). */
  url: string;
  /** Terminates every connection to it and drops it. Idempotent. */
  drop(): Promise<void>;
}

async function runOnServer(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Waits (bounded) until no backend is connected to `name`. `pg.Pool.end()` resolves once it has
 * asked its clients to end, before their backends have gone: terminating those with `FORCE` makes
 * a closing client receive a fatal error it no longer has a listener for (an uncaught exception in
 * the test run). Connections still open at the deadline are left to `FORCE`.
 */
async function connectionsGone(adminUrl: string, name: string, deadlineMs = 2_000): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const deadline = Date.now() + deadlineMs;
    for (;;) {
      const { rows } = await client.query<{ connected: number }>(
        "SELECT count(*)::int AS connected FROM pg_stat_activity WHERE datname = $1",
        [name],
      );
      if ((rows[0]?.connected ?? 0) === 0 || Date.now() >= deadline) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await client.end();
  }
}

/**
 * Creates an empty, uniquely named database (`<prefix>_<random>`) on the server of `adminUrl` (a
 * URL of any database there that may CREATE DATABASE). Tests (through `createTestDatabase`) and
 * the benchmarks make theirs here, so none depends on what another run left behind.
 */
export async function createScratchDatabase(adminUrl: string, prefix: string): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(8).toString("hex")}`;
  await runOnServer(adminUrl, `CREATE DATABASE ${quoteIdentifier(name)}`);
  let dropped = false;
  return {
    name,
    url: withDatabaseName(adminUrl, name),
    drop: async () => {
      if (dropped) return;
      dropped = true;
      await connectionsGone(adminUrl, name);
      await runOnServer(adminUrl, `DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`);
    },
  };
}
