// Fails (exit 1) when prisma/schema.prisma and prisma/migrations/ disagree, i.e. when someone edited
// the schema without generating a migration (or edited a migration by hand). Prisma replays the
// migrations into a throw-away shadow database and diffs the result against the schema. Uses
// DATABASE_URL's server when set, else a temporary embedded PostgreSQL.
import { spawnSync } from "node:child_process";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { startEmbeddedPostgres } from "../src/embedded-postgres.js";

const packageDir = path.resolve(import.meta.dirname, "..");
const repositoryRoot = path.resolve(packageDir, "../..");

async function withServer<T>(run: (url: string) => T): Promise<T> {
  const configured = process.env.DATABASE_URL;
  if (configured) return run(configured);
  const root = await mkdtemp(path.join(tmpdir(), "parley-drift-pg-"));
  await chmod(root, 0o755);
  const server = await startEmbeddedPostgres({ dataDir: path.join(root, "data"), ephemeral: true });
  try {
    return run(server.url);
  } finally {
    await server.stop();
    await rm(root, { recursive: true, force: true });
  }
}

const status = await withServer((url) => {
  const result = spawnSync(
    process.execPath,
    [
      path.join(packageDir, "scripts/prisma.mjs"),
      "migrate",
      "diff",
      "--from-migrations",
      path.join(repositoryRoot, "prisma/migrations"),
      "--to-schema-datamodel",
      path.join(repositoryRoot, "prisma/schema.prisma"),
      "--script",
      "--exit-code",
    ],
    { env: { ...process.env, DATABASE_URL: url }, stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" },
  );
  return { code: result.status, output: result.stdout };
});

if (status.code === 0) {
  console.log("prisma/schema.prisma and prisma/migrations/ agree.");
  process.exit(0);
}
if (status.code === 2) {
  console.error("Drift: prisma/schema.prisma differs from prisma/migrations/. Missing migration SQL:\n");
  console.error(status.output);
  console.error("Create it with: npm run db:migrate-dev -w @parley/db -- --name <change>");
} else {
  console.error(`prisma migrate diff failed (exit ${status.code}).\n${status.output}`);
}
process.exit(1);
