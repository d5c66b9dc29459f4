import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { readMigrations } from "../migrations/migrate-database.js";
import { createTestDatabase, type TestDatabase } from "./test-database.js";

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe("createTestDatabase", () => {
  const created: TestDatabase[] = [];
  afterEach(async () => {
    for (const database of created.splice(0)) await database.drop();
  });

  it("creates a distinct, fully migrated database per call and drops it despite open connections", async () => {
    const first = await createTestDatabase();
    const second = await createTestDatabase();
    created.push(first, second);
    expect(first.url).not.toBe(second.url);

    const migrations = await readMigrations();
    const recorded = await query<{ migration_name: string; checksum: string }>(
      first.url,
      `SELECT migration_name, checksum FROM "_prisma_migrations" ORDER BY migration_name`,
    );
    expect(recorded).toEqual(migrations.map(({ name, checksum }) => ({ migration_name: name, checksum })));
    const tables = await query<{ table_name: string }>(
      first.url,
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`,
    );
    expect(tables.map((row) => row.table_name)).toEqual([
      "_prisma_migrations",
      "api_tokens",
      "interaction_events",
      "interactions",
      "message_parts",
      "messages",
      "session_commands",
      "session_events",
      "sessions",
      "turns",
      "users",
    ]);

    const lingering = new pg.Client({ connectionString: first.url });
    lingering.on("error", () => undefined);
    await lingering.connect();
    const name = new URL(first.url).pathname.slice(1);
    await first.drop();
    const remaining = await query<{ datname: string }>(
      second.url,
      `SELECT datname FROM pg_database WHERE datname = '${name}'`,
    );
    expect(remaining).toEqual([]);
    await lingering.end().catch(() => undefined);
  });
});
