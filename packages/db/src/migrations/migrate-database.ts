import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import pg from "pg";

/**
 * `prisma/migrations/` at the repository root. `src/migrations/` and `dist/migrations/` sit at the
 * same depth, so the same relative path works from sources and from the build.
 */
export const DEFAULT_MIGRATIONS_DIR = fileURLToPath(
  new URL("../../../../prisma/migrations/", import.meta.url),
);

/** Arbitrary constant: the advisory lock that serialises concurrent migrators (several instances). */
const MIGRATION_LOCK_KEY = 7_342_911_001;

/** Exactly Prisma's own bookkeeping table, so `prisma migrate status` agrees with this runner. */
const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id"                  VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum"            VARCHAR(64) NOT NULL,
  "finished_at"         TIMESTAMPTZ,
  "migration_name"      VARCHAR(255) NOT NULL,
  "logs"                TEXT,
  "rolled_back_at"      TIMESTAMPTZ,
  "started_at"          TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export interface MigrationFile {
  name: string;
  sql: string;
  /** SHA-256 hex of the file, as Prisma computes it. */
  checksum: string;
}

export interface MigrateResult {
  /** Names of the migrations this call applied, in order (empty when the database was current). */
  applied: string[];
}

export async function readMigrations(migrationsDir = DEFAULT_MIGRATIONS_DIR): Promise<MigrationFile[]> {
  const entries = await readdir(migrationsDir, { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(`${migrationsDir}/${name}/migration.sql`, "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    }),
  );
}

/**
 * Applies the pending `prisma/migrations/<name>/migration.sql` files in name order, all in ONE
 * transaction, and records each in `_prisma_migrations` the way `prisma migrate deploy` does. Faster
 * than spawning the Prisma CLI (no engine start), safe to call from several processes at once (an
 * advisory lock serialises them; the loser finds nothing left to do), and a no-op on a current
 * database. Refuses to run when an applied migration's file was edited since (checksum mismatch).
 */
export async function migrateDatabase(
  url: string,
  options: { migrationsDir?: string } = {},
): Promise<MigrateResult> {
  const migrations = await readMigrations(options.migrationsDir);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("BEGIN");
    try {
      await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_KEY]);
      await client.query(CREATE_MIGRATIONS_TABLE);
      const { rows } = await client.query<{ migration_name: string; checksum: string }>(
        `SELECT migration_name, checksum FROM "_prisma_migrations"
          WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
      );
      const appliedChecksums = new Map(rows.map((row) => [row.migration_name, row.checksum]));
      const applied: string[] = [];
      for (const migration of migrations) {
        const recorded = appliedChecksums.get(migration.name);
        if (recorded !== undefined) {
          if (recorded !== migration.checksum) {
            throw new Error(
              `Migration ${migration.name} was modified after it was applied (checksum ${recorded} in the database, ${migration.checksum} on disk)`,
            );
          }
          continue;
        }
        await client.query(migration.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
           VALUES ($1, $2, now(), $3, now(), 1)`,
          [randomUUID(), migration.checksum, migration.name],
        );
        applied.push(migration.name);
      }
      await client.query("COMMIT");
      return { applied };
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    }
  } finally {
    await client.end();
  }
}
