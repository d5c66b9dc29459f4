import { chmod, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createDatabase } from "./create-database.js";
import { withDatabaseName } from "./database-url.js";
import { startEmbeddedPostgres } from "./embedded-postgres.js";
import { migrateDatabase } from "./migrations/migrate-database.js";
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

/** A fresh project directory with the given mode, removed after the test (with a relocated cluster). */
async function projectDir(mode: number): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), "parley-zero-setup-"));
  await chmod(root, mode);
  cleanups.push(async () => {
    const pointer = path.join(root, ".parley", "postgres.location");
    const relocated = await readFile(pointer, "utf8").then(
      (text) => text.trim(),
      () => null,
    );
    if (relocated !== null) await rm(path.dirname(relocated), { recursive: true, force: true });
    await rm(root, { recursive: true, force: true });
  });
  return root;
}

function track(resolved: ResolvedDatabase): ResolvedDatabase {
  cleanups.push(() => resolved.stop());
  return resolved;
}

describe("resolveDatabaseUrl (zero-setup default)", () => {
  it("passes a configured URL through and starts nothing", async () => {
    const resolved = await resolveDatabaseUrl({ database_url: "postgresql://example.invalid/db" });
    expect(resolved.url).toBe("postgresql://example.invalid/db");
    expect(resolved.embedded).toBe(false);
  });

  it("starts embedded PostgreSQL under data_root, migrates on createDatabase, and keeps the data across restarts", async () => {
    const data_root = path.join(await projectDir(0o755), ".parley");

    let resolved = track(await resolveDatabaseUrl({ data_root }));
    expect(resolved.embedded).toBe(true);
    expect(new URL(resolved.url).pathname).toBe("/parley");
    const database = await createDatabase({ url: resolved.url });
    const user = await database.auth.createUser({ name: "survivor", role: "admin" });
    await database.close();
    await resolved.stop();

    resolved = track(await resolveDatabaseUrl({ data_root }));
    expect(await query(resolved.url, "SELECT user_id, name FROM users")).toEqual([
      { user_id: user.user_id, name: "survivor" },
    ]);
    const reopened = await createDatabase({ url: resolved.url });
    expect(await reopened.auth.findUserByName("survivor")).toStrictEqual(user);
    await reopened.close();
  });

  it("generates its passwords into a 0600 file and connects the app as a non-superuser that owns its database", async () => {
    const data_root = path.join(await projectDir(0o755), ".parley");
    const resolved = track(await resolveDatabaseUrl({ data_root }));
    const credentialsFile = path.join(data_root, "postgres.credentials.json");
    expect((await stat(credentialsFile)).mode & 0o777).toBe(0o600);
    const credentials = JSON.parse(await readFile(credentialsFile, "utf8")) as Record<string, string>;
    expect(Object.keys(credentials).sort()).toEqual(["app_password", "superuser_password"]);
    expect(credentials.superuser_password).not.toBe("parley");

    const url = new URL(resolved.url);
    expect(url.username).toBe("parley_app");
    expect(url.password).toBe(credentials.app_password);
    expect(
      await query(
        resolved.url,
        "SELECT current_user AS role, r.rolsuper, r.rolcreatedb, r.rolcreaterole, pg_get_userbyid(d.datdba) AS owner " +
          "FROM pg_roles r, pg_database d WHERE r.rolname = current_user AND d.datname = current_database()",
      ),
    ).toEqual([
      { role: "parley_app", rolsuper: false, rolcreatedb: false, rolcreaterole: false, owner: "parley_app" },
    ]);
    const database = await createDatabase({ url: resolved.url });
    await database.close();
    const wrong = new URL(resolved.url);
    wrong.username = "postgres";
    wrong.password = "parley";
    await expect(query(wrong.toString(), "SELECT 1")).rejects.toThrow(/password authentication failed/);
  });

  it("starts, migrates and restarts with the project under a private (0700) directory, as root too", async () => {
    const data_root = path.join(await projectDir(0o700), ".parley");
    let resolved = track(await resolveDatabaseUrl({ data_root }));
    const database = await createDatabase({ url: resolved.url });
    await database.auth.createUser({ name: "private", role: "member" });
    await database.close();
    await resolved.stop();
    if (process.getuid?.() === 0) {
      // The `postgres` user cannot pass the 0700 directory: the data went where it can.
      const relocated = (await readFile(path.join(data_root, "postgres.location"), "utf8")).trim();
      expect(relocated).toMatch(/^\/var\/lib\/parley\/clusters\/[0-9a-f]{16}\/data$/);
      expect((await stat(path.join(relocated, "PG_VERSION"))).isFile()).toBe(true);
    }
    resolved = track(await resolveDatabaseUrl({ data_root }));
    expect(await query(resolved.url, "SELECT name FROM users")).toEqual([{ name: "private" }]);
  });

  it("adopts a cluster made with the old fixed password: new generated passwords, and its tables handed to the app role", async () => {
    const data_root = path.join(await projectDir(0o755), ".parley");
    const credentialsFile = path.join(data_root, "postgres.credentials.json");
    // An install from before: superuser password `parley`, the app's tables owned by the superuser.
    const old = await startEmbeddedPostgres({ dataDir: path.join(data_root, "postgres"), credentialsFile });
    await query(old.url, "CREATE DATABASE parley");
    await migrateDatabase(withDatabaseName(old.url, "parley"));
    await query(
      withDatabaseName(old.url, "parley"),
      "INSERT INTO users VALUES ('user:old', 'old', 'admin', 1)",
    );
    await query(old.url, "ALTER ROLE postgres PASSWORD 'parley'");
    await old.stop();
    await rm(credentialsFile);

    const resolved = track(await resolveDatabaseUrl({ data_root }));
    expect((await stat(credentialsFile)).mode & 0o777).toBe(0o600);
    const credentials = JSON.parse(await readFile(credentialsFile, "utf8")) as Record<string, string>;
    expect(credentials.superuser_password).not.toBe("parley");
    expect(new URL(resolved.url).username).toBe("parley_app");
    const database = await createDatabase({ url: resolved.url });
    await database.auth.createUser({ name: "new", role: "member" });
    await database.close();
    expect(await query(resolved.url, "SELECT name FROM users ORDER BY name")).toEqual([
      { name: "new" },
      { name: "old" },
    ]);
    expect(
      await query(
        resolved.url,
        "SELECT DISTINCT pg_get_userbyid(relowner) AS owner FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'",
      ),
    ).toEqual([{ owner: "parley_app" }]);
  });
});
