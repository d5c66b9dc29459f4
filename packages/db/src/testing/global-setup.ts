import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "../embedded-postgres.js";
import { TEST_ADMIN_URL_ENV } from "./admin-url.js";

/**
 * Vitest global setup of the `int` and `e2e` projects: the database server every test uses. With
 * `DATABASE_URL` set, that server; otherwise an embedded PostgreSQL in a temporary directory,
 * stopped and deleted at teardown. Tests get the admin URL through `createTestDatabase()` (env var
 * for workers and their child processes, plus vitest `provide`).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const configured = process.env.DATABASE_URL;
  if (configured) {
    process.env[TEST_ADMIN_URL_ENV] = configured;
    project.provide("parleyTestAdminDatabaseUrl", configured);
    return async () => undefined;
  }
  const root = await mkdtemp(path.join(tmpdir(), "parley-test-pg-"));
  await chmod(root, 0o755);
  const server = await startEmbeddedPostgres({ dataDir: path.join(root, "data"), ephemeral: true });
  process.env[TEST_ADMIN_URL_ENV] = server.url;
  project.provide("parleyTestAdminDatabaseUrl", server.url);
  return async () => {
    await server.stop();
    await rm(root, { recursive: true, force: true });
  };
}
