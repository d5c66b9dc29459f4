import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DEFAULT_MIGRATIONS_DIR, readMigrations } from "./migrate-database.js";
import { contractionsOf, type GrandfatheredContraction, lintMigrations } from "./migration-lint.js";

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");

/** What reads the database: the Prisma schema and the non-test sources of `@parley/db`. */
function databaseSources(): { path: string; text: string }[] {
  const sourceRoot = path.join(REPO_ROOT, "packages/db/src");
  const files = readdirSync(sourceRoot, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
    .filter((file) => !file.startsWith("testing/") && !file.startsWith("test-support/"))
    .filter((file) => !file.startsWith("migrations/migration-lint"))
    .map((file) => path.join("packages/db/src", file));
  return ["prisma/schema.prisma", ...files].map((file) => ({
    path: file,
    text: readFileSync(path.join(REPO_ROOT, file), "utf8"),
  }));
}

function grandfathered(): GrandfatheredContraction[] {
  const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, "prisma/migration-lint.json"), "utf8")) as {
    grandfathered: GrandfatheredContraction[];
  };
  return manifest.grandfathered;
}

describe("migration lint (expand/contract)", () => {
  it("passes on prisma/migrations, whose one unmarked drop is the grandfathered turn_leases", async () => {
    const migrations = await readMigrations(DEFAULT_MIGRATIONS_DIR);
    expect(
      lintMigrations({ migrations, sources: databaseSources(), grandfathered: grandfathered() }),
    ).toEqual([]);
    // Honest about it: without the manifest, exactly that drop is reported.
    const unexcused = lintMigrations({ migrations, sources: databaseSources() });
    expect(unexcused.map(({ migration, kind, name }) => ({ migration, kind, name }))).toEqual([
      { migration: "20261203160000_drop_turn_leases", kind: "table", name: "turn_leases" },
    ]);
  });

  it("refuses a planted DROP of a table and of a column the code still reads, and a RENAME", async () => {
    const migrations = [
      ...(await readMigrations(DEFAULT_MIGRATIONS_DIR)),
      {
        name: "20991231000000_contract_too_early",
        sql: `DROP TABLE "interactions";\nALTER TABLE "sessions" DROP COLUMN "title", ADD COLUMN "x" TEXT;\nALTER TABLE "users" RENAME COLUMN "name" TO "display_name";`,
      },
    ];
    const violations = lintMigrations({
      migrations,
      sources: databaseSources(),
      grandfathered: grandfathered(),
    });
    expect(violations.map(({ kind, name }) => `${kind} ${name}`)).toEqual([
      "table interactions",
      "column sessions.title",
      "column users.name",
    ]);
  });

  it("allows a drop only after an earlier migration marked it deprecated and no database source names it", () => {
    const deprecate = {
      name: "20990101000000_deprecate",
      sql: `-- parley:deprecate table "old_things"\n-- parley:deprecate column "sessions"."old_note"\nSELECT 1;`,
    };
    const contract = {
      name: "20990201000000_contract",
      sql: `DROP TABLE IF EXISTS "old_things" CASCADE;\nALTER TABLE "sessions" DROP COLUMN IF EXISTS "old_note";`,
    };
    const clean = [{ path: "schema.prisma", text: "model Session { title String }" }];
    expect(lintMigrations({ migrations: [deprecate, contract], sources: clean })).toEqual([]);

    // The marker in the same migration as the drop is not "earlier": the previous release never saw it.
    const sameMigration = { name: contract.name, sql: `${deprecate.sql}\n${contract.sql}` };
    expect(lintMigrations({ migrations: [sameMigration], sources: clean })).toHaveLength(2);

    const stillRead = [
      { path: "packages/db/src/x.ts", text: 'await pool.query(`SELECT "old_note" FROM sessions`)' },
    ];
    expect(lintMigrations({ migrations: [deprecate, contract], sources: stillRead })).toEqual([
      expect.objectContaining({
        kind: "column",
        name: "sessions.old_note",
        reason: "still referenced by packages/db/src/x.ts",
      }),
    ]);
  });

  it("reads contractions exactly, and lets expand-only statements and index or constraint drops through", () => {
    expect(contractionsOf('DROP TABLE "a", b CASCADE')).toEqual([
      { kind: "table", name: "a" },
      { kind: "table", name: "b" },
    ]);
    expect(contractionsOf('ALTER TABLE "t" RENAME TO "u"')).toEqual([{ kind: "table", name: "t" }]);
    expect(contractionsOf("ALTER TYPE \"role\" RENAME VALUE 'a' TO 'b'")).toEqual([
      { kind: "type", name: "role" },
    ]);
    expect(contractionsOf('ALTER TABLE "t" DROP c')).toEqual([{ kind: "column", name: "t.c" }]);
    for (const expandOnly of [
      'DROP INDEX "interactions_status_idx"',
      'ALTER TABLE "t" DROP CONSTRAINT "t_fkey"',
      'ALTER TABLE "t" ALTER COLUMN "c" DROP NOT NULL, ALTER COLUMN "d" DROP DEFAULT',
      'ALTER TABLE "t" ADD COLUMN "c" TEXT',
      'ALTER TABLE "t" RENAME CONSTRAINT "a" TO "b"',
      'CREATE TABLE "t" ("c" TEXT)',
    ]) {
      expect(contractionsOf(expandOnly)).toEqual([]);
    }
  });
});
