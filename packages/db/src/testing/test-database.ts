import { migrateDatabase } from "../migrations/migrate-database.js";
import { resolveTestAdminUrl } from "./admin-url.js";
import { createScratchDatabase } from "./scratch-database.js";

export interface TestDatabase {
  /** URL of a fresh, fully migrated database that belongs to the caller alone. */
  url: string;
  /** Terminates every connection to it and drops it. Idempotent. */
  drop(): Promise<void>;
}

/**
 * Creates a uniquely named database (`parley_test_<random>`) on the test server and applies the
 * migrations. Tests never share a database and never depend on what an earlier run left behind.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const { url, drop } = await createScratchDatabase(await resolveTestAdminUrl(), "parley_test");
  try {
    await migrateDatabase(url);
  } catch (error) {
    await drop().catch(() => undefined);
    throw error;
  }
  return { url, drop };
}
