import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "../embedded-postgres.js";
import { TEST_ADMIN_URL_ENV } from "./admin-url.js";

interface SharedServer {
  url: string;
  /** Projects (int, e2e …) of this vitest run still using the server. */
  users: number;
  stop(): Promise<void>;
}

/**
 * One embedded server per vitest process, however many projects list this file: kept on
 * `globalThis` because each project may load its own copy of this module. The last project to
 * finish stops it, so no project loses its server while another still runs.
 */
const registry = globalThis as typeof globalThis & { parleyTestPostgres?: Promise<SharedServer> };

async function startSharedServer(): Promise<SharedServer> {
  const root = await mkdtemp(path.join(tmpdir(), "parley-test-pg-"));
  await chmod(root, 0o755);
  const server = await startEmbeddedPostgres({ dataDir: path.join(root, "data"), ephemeral: true });
  return {
    url: server.url,
    users: 0,
    async stop() {
      await server.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/**
 * Vitest global setup of the `int` and `e2e` projects: the database server every test uses. With
 * `DATABASE_URL` set, that server; otherwise an embedded PostgreSQL in a temporary directory
 * (durability off), stopped and deleted at teardown. Tests get the admin URL through
 * `createTestDatabase()`: an env var that workers and their child processes inherit, and vitest
 * `provide`.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const configured = process.env.DATABASE_URL;
  if (configured) {
    process.env[TEST_ADMIN_URL_ENV] = configured;
    project.provide("parleyTestAdminDatabaseUrl", configured);
    return async () => undefined;
  }
  registry.parleyTestPostgres ??= startSharedServer();
  const server = await registry.parleyTestPostgres;
  server.users += 1;
  process.env[TEST_ADMIN_URL_ENV] = server.url;
  project.provide("parleyTestAdminDatabaseUrl", server.url);
  return async () => {
    server.users -= 1;
    if (server.users > 0) return;
    registry.parleyTestPostgres = undefined;
    delete process.env[TEST_ADMIN_URL_ENV];
    await server.stop();
  };
}
