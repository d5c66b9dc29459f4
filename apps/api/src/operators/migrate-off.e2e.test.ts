import { createTestDatabase } from "@parley/db/testing";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { startApiProcess } from "../testing/index.js";

const LAST_MIGRATION = "20261203160000_drop_turn_leases";

/**
 * Puts a fully migrated database back one migration: the state of an instance of the previous
 * release (its `turn_leases` table exists, the last migration is not recorded), so that starting
 * an API on it has exactly one migration pending.
 */
async function rollBackLastMigration(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DELETE FROM "_prisma_migrations" WHERE migration_name = $1`, [LAST_MIGRATION]);
    await client.query(`CREATE TABLE "turn_leases" (
      "session_id" TEXT NOT NULL, "epoch" INTEGER NOT NULL, "holder_id" TEXT NOT NULL,
      "acquired_at" BIGINT NOT NULL, CONSTRAINT "turn_leases_pkey" PRIMARY KEY ("session_id"))`);
  } finally {
    await client.end();
  }
}

/** The schema as a comparable list: every table and column of `public`, and the recorded migrations. */
async function schemaOf(url: string): Promise<{ columns: string[]; migrations: string[] }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const columns = await client.query<{ name: string }>(
      `SELECT table_name || '.' || column_name || ':' || data_type AS name FROM information_schema.columns
        WHERE table_schema = 'public' ORDER BY 1`,
    );
    const migrations = await client.query<{ migration_name: string }>(
      `SELECT migration_name FROM "_prisma_migrations" ORDER BY 1`,
    );
    return {
      columns: columns.rows.map((row) => row.name),
      migrations: migrations.rows.map((row) => row.migration_name),
    };
  } finally {
    await client.end();
  }
}

describe("operators: PARLEY_MIGRATE", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function databaseOfThePreviousRelease(): Promise<string> {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    await rollBackLastMigration(database.url);
    return database.url;
  }

  it("off: the API starts and serves without touching the schema (the pending migration stays pending)", async () => {
    const url = await databaseOfThePreviousRelease();
    const before = await schemaOf(url);
    expect(before.columns).toContain("turn_leases.holder_id:text");
    expect(before.migrations).not.toContain(LAST_MIGRATION);

    const api = await startApiProcess({ database_url: url, env: { PARLEY_MIGRATE: "off" } });
    cleanups.push(() => api.stop("SIGKILL"));
    expect((await fetch(`${api.url}/healthz`)).status).toBe(200);

    expect(await schemaOf(url)).toEqual(before);
  });

  it("on (the default): the same start applies the pending migration", async () => {
    const url = await databaseOfThePreviousRelease();
    const api = await startApiProcess({ database_url: url });
    cleanups.push(() => api.stop("SIGKILL"));

    const after = await schemaOf(url);
    expect(after.columns.filter((column) => column.startsWith("turn_leases."))).toEqual([]);
    expect(after.migrations).toContain(LAST_MIGRATION);
  });
});
