import { randomBytes } from "node:crypto";
import pg from "pg";
import { quoteIdentifier, withDatabaseName } from "../database-url.js";
import { migrateDatabase } from "../migrations/migrate-database.js";
import { resolveTestAdminUrl } from "./admin-url.js";

export interface TestDatabase {
  /** URL of a fresh, fully migrated database that belongs to the caller alone. */
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
 * Creates a uniquely named database (`parley_test_<random>`) on the test server and applies the
 * migrations. Tests never share a database and never depend on what an earlier run left behind.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = await resolveTestAdminUrl();
  const name = `parley_test_${randomBytes(8).toString("hex")}`;
  await runOnServer(adminUrl, `CREATE DATABASE ${quoteIdentifier(name)}`);
  const url = withDatabaseName(adminUrl, name);
  const drop = async () => {
    await connectionsGone(adminUrl, name);
    await runOnServer(adminUrl, `DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`);
  };
  try {
    await migrateDatabase(url);
  } catch (error) {
    await drop().catch(() => undefined);
    throw error;
  }
  return { url, drop };
}
