#!/usr/bin/env node
// `npm start` (after `npm run build`): Postgres (embedded under .parley/ unless DATABASE_URL is set),
// migrations (unless PARLEY_MIGRATE=off), a fresh local admin token (the previous ones revoked), then
// the API and the web app, both on 127.0.0.1 unless HOST says otherwise. It prints a one-time sign-in
// link, as Jupyter does: opening it sets an HttpOnly cookie in that browser, and no page ever
// carries the token (apps/web/local-sign-in.mjs). Ctrl-C stops everything. A failure is one line
// with the fix.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createDatabase } from "@parley/db";

const root = new URL("..", import.meta.url).pathname;
const apiPort = Number(process.env.PORT ?? 4000);
const webPort = Number(process.env.WEB_PORT ?? 3000);
const host = process.env.HOST?.trim() || "127.0.0.1";
/** Where this machine's browser and the web app reach the API (a wildcard bind is reachable on loopback). */
const apiHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
const urlHost = apiHost.includes(":") ? `[${apiHost}]` : apiHost;
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

  // Applies the migrations (PARLEY_MIGRATE=off: the operator does), then replaces the local admin's
  // tokens with a fresh one (stored hashed, held by the web server only): a token handed out by an
  // earlier start stops working now.
  const parley = await createDatabase({
    url: databaseUrl,
    migrate: process.env.PARLEY_MIGRATE?.trim() !== "off",
  });
  let token;
  try {
    const admin = await parley.auth.ensureUser({ name: "local-admin", role: "admin" });
    await parley.auth.revokeTokens(admin.user_id);
    token = await parley.auth.issueToken(admin.user_id);
  } finally {
    await parley.close();
  }

  const apiUrl = `http://${urlHost}:${apiPort}`;
  const signInCode = randomBytes(24).toString("base64url");
  startChild("api", process.execPath, [join(root, "apps/api/dist/main.js")], {
    DATABASE_URL: databaseUrl,
    PORT: String(apiPort),
    HOST: host,
  });
  await waitForHealth(`${apiUrl}/healthz`);

  startChild(
    "web",
    process.execPath,
    [join(root, "apps/web/server.mjs")],
    {
      WEB_PORT: String(webPort),
      HOST: host,
      NODE_ENV: "production",
      PARLEY_API_URL: apiUrl,
      PARLEY_LOCAL_TOKEN: token,
      PARLEY_SIGN_IN_CODE: signInCode,
      NEXT_TELEMETRY_DISABLED: "1",
    },
    join(root, "apps/web"),
  );
  await waitForHealth(`http://${urlHost}:${webPort}/sign-in`, "The web app");

  console.log(`
Parley is running.
  Sign in (once):   http://${urlHost}:${webPort}/local-sign-in?code=${signInCode}
                    (signs this browser in as local-admin; the link works once, a restart prints a new one)
  Web app:          http://${urlHost}:${webPort}
  API:              ${apiUrl}/trpc   (health: ${apiUrl}/healthz)
  Listening on:     ${host}${host === "127.0.0.1" ? " (this machine only; set HOST to change)" : ""}
  Other users:      npm run parley -- token create --user NAME
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
    // The host has printed its one-line reason on stderr already.
    databaseHost.once("exit", (code) =>
      reject(new ReportedError(`embedded PostgreSQL did not start (exit ${code})`)),
    );
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

/** A failure whose reason a child has already printed. */
class ReportedError extends Error {}

async function waitForHealth(url, what = "The API") {
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
  throw new Error(`${what} did not answer at ${url} within 60 s. Fix: see its output above.`);
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
  if (!(error instanceof ReportedError)) {
    const message = error instanceof Error ? error.message : String(error);
    const line = message.split("\n").find((text) => text.trim() !== "") ?? "start failed";
    const databaseHint =
      process.env.DATABASE_URL && error?.code
        ? " Fix: check that DATABASE_URL points at a running PostgreSQL."
        : "";
    console.error(`parley: ${line}${databaseHint}`);
  }
  await shutdown(1);
});
