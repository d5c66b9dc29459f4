import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createDatabase } from "./create-database.js";
import { type ResolvedDatabase, resolveDatabaseUrl } from "./resolve-database-url.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe("resolveDatabaseUrl (zero-setup default)", () => {
  it("passes a configured URL through and starts nothing", async () => {
    const resolved = await resolveDatabaseUrl({ database_url: "postgresql://example.invalid/db" });
    expect(resolved.url).toBe("postgresql://example.invalid/db");
    expect(resolved.embedded).toBe(false);
  });

  it("starts embedded PostgreSQL under data_root, migrates on createDatabase, and keeps the data across restarts", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "parley-zero-setup-"));
    await chmod(root, 0o755);
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    const data_root = path.join(root, ".parley");

    let resolved: ResolvedDatabase | null = await resolveDatabaseUrl({ data_root });
    const first = resolved;
    cleanups.push(() => first.stop());
    expect(resolved.embedded).toBe(true);
    expect(new URL(resolved.url).pathname).toBe("/parley");
    const database = await createDatabase({ url: resolved.url });
    const user = await database.auth.createUser({ name: "survivor", role: "admin" });
    await database.close();
    await resolved.stop();

    resolved = await resolveDatabaseUrl({ data_root });
    const second = resolved;
    cleanups.push(() => second.stop());
    expect(await query(resolved.url, "SELECT user_id, name FROM users")).toEqual([
      { user_id: user.user_id, name: "survivor" },
    ]);
    const reopened = await createDatabase({ url: resolved.url });
    expect(await reopened.auth.findUserByName("survivor")).toStrictEqual(user);
    await reopened.close();
  });
});
