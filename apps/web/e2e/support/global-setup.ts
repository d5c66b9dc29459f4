import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDatabase } from "@parley/db/testing";
import { API_PORT, LOCAL_WEB_PORT, WEB_PORT } from "./ports";
import {
  createToken,
  isPortBusy,
  REPO_ROOT,
  startApi,
  startWeb,
  stopServer,
  WEB_ROOT,
  writeStackEnv,
} from "./stack";

/**
 * Fresh database → built API (demo model) → built web app → one admin and one member token.
 * The returned function is the teardown Playwright runs after the last test (or a failed setup).
 */
export default async function globalSetup() {
  for (const [what, file] of [
    ["API", path.join(REPO_ROOT, "apps/api/dist/main.js")],
    ["web app", path.join(WEB_ROOT, ".next/BUILD_ID")],
  ] as const) {
    if (!existsSync(file))
      throw new Error(`The ${what} is not built (${file} missing): run \`npm run build\` first.`);
  }
  for (const port of [API_PORT, WEB_PORT, LOCAL_WEB_PORT]) {
    if (await isPortBusy(port))
      throw new Error(`Port ${port} is already in use; stop whatever listens there first.`);
  }
  process.env.DATABASE_URL ??= "postgres://postgres@127.0.0.1:5432/postgres";
  const database = await createTestDatabase();
  const state_dir = mkdtempSync(path.join(tmpdir(), "parley-web-e2e-"));
  const workspace_root = path.join(state_dir, "workspaces");
  // Two operator-named workspaces for the picker (web-contract.spec.ts); the API inherits this env.
  process.env.PARLEY_WORKSPACES = ["project", "docs"]
    .map((id) => `${id}=${mkdirSync(path.join(state_dir, id), { recursive: true }) ?? ""}`)
    .join(",");
  const stack = { database_url: database.url, workspace_root, state_dir };
  try {
    await startApi(stack);
    await startWeb(stack);
    writeStackEnv({
      ...stack,
      api_url: `http://127.0.0.1:${API_PORT}`,
      web_url: `http://127.0.0.1:${WEB_PORT}`,
      admin_token: createToken(database.url, "Ada Admin", true),
      member_token: createToken(database.url, "Mia Member", false),
    });
  } catch (error) {
    await stopServer(state_dir, "web");
    await stopServer(state_dir, "api");
    await database.drop();
    throw error;
  }
  return async () => {
    await stopServer(state_dir, "web-local");
    await stopServer(state_dir, "web");
    await stopServer(state_dir, "api");
    await database.drop();
    rmSync(state_dir, { recursive: true, force: true });
  };
}
