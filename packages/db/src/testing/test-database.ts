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
 * Creates a uniquely named database (`parley_test_<random>`) on the test server and applies the
 * migrations. Tests never share a database and never depend on what an earlier run left behind.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = await resolveTestAdminUrl();
  const name = `parley_test_${randomBytes(8).toString("hex")}`;
  await runOnServer(adminUrl, `CREATE DATABASE ${quoteIdentifier(name)}`);
  const url = withDatabaseName(adminUrl, name);
  const drop = () => runOnServer(adminUrl, `DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`);
  try {
    await migrateDatabase(url);
  } catch (error) {
    await drop().catch(() => undefined);
    throw error;
  }
  return { url, drop };
}
