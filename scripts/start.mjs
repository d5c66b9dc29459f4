#!/usr/bin/env node
// `npm start` (after `npm run build`): Postgres (embedded under .parley/ unless DATABASE_URL is set),
// migrations, a local admin token, then the API and the web app. Ctrl-C stops everything.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createDatabase } from "@parley/db";

const root = new URL("..", import.meta.url).pathname;
const apiPort = Number(process.env.PORT ?? 4000);
const webPort = Number(process.env.WEB_PORT ?? 3000);
const children = [];
/** The embedded database's host process, stopped after the API and the web app. */
let databaseHost = null;
let stopping = false;

async function main() {
  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    console.log("Starting embedded PostgreSQL (data under .parley/postgres) …");
    databaseUrl = await startDatabaseHost();
  }

  // Applies the migrations, then mints a fresh token for the local admin (shown once, stored hashed).
  const parley = await createDatabase({ url: databaseUrl });
  let token;
  try {
    const admin = await parley.auth.ensureUser({ name: "local-admin", role: "admin" });
    token = await parley.auth.issueToken(admin.user_id);
  } finally {
    await parley.close();
  }

  const apiUrl = `http://127.0.0.1:${apiPort}`;
  startChild("api", process.execPath, [join(root, "apps/api/dist/main.js")], {
    DATABASE_URL: databaseUrl,
    PORT: String(apiPort),
  });
  await waitForHealth(`${apiUrl}/healthz`);

  startChild(
    "web",
    process.execPath,
    [join(root, "node_modules/next/dist/bin/next"), "start", "-p", String(webPort)],
    {
      PARLEY_API_URL: apiUrl,
      PARLEY_LOCAL_TOKEN: token,
      NEXT_TELEMETRY_DISABLED: "1",
    },
    join(root, "apps/web"),
  );

  console.log(`
Parley is running.
  Web app:          http://localhost:${webPort}   (signs in as local-admin automatically)
  API:              ${apiUrl}/trpc   (health: ${apiUrl}/healthz)
  Local admin token: ${token}
Press Ctrl-C to stop.`);
}

/** Starts scripts/database-host.mjs and resolves with the URL it prints once Postgres is ready. */
function startDatabaseHost() {
  databaseHost = spawn(process.execPath, [join(root, "scripts/database-host.mjs")], {
    cwd: root,
    detached: true,
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    databaseHost.once("exit", (code) => reject(new Error(`embedded PostgreSQL host exited (${code})`)));
    createInterface({ input: databaseHost.stdout }).once("line", (line) => resolve(JSON.parse(line).url));
  });
}

// Children run in their own process groups (detached): a terminal's Ctrl-C reaches only this script,
// which then stops them in order (API and web, then the database).
function startChild(name, command, args, extraEnv, cwd = root) {
  const child = spawn(command, args, {
    cwd,
    detached: true,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, ...extraEnv },
  });
  child.on("exit", (code, signal) => {
    if (!stopping) {
      console.error(`${name} exited (${signal ?? code}); stopping.`);
      void shutdown(1);
    }
  });
  children.push(child);
}

async function waitForHealth(url) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`API did not become healthy at ${url} within 60 s`);
}

async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once("exit", resolve);
          child.kill("SIGTERM");
          setTimeout(() => child.kill("SIGKILL"), 10_000).unref();
        }),
    ),
  );
  if (databaseHost && databaseHost.exitCode === null) {
    await new Promise((resolve) => {
      databaseHost.once("exit", resolve);
      databaseHost.kill("SIGTERM");
    });
  }
  process.exit(code);
}

process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));
main().catch(async (error) => {
  console.error(error instanceof Error ? error.message : error);
  await shutdown(1);
});
