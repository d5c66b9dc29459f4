import { spawn, spawnSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { API_PORT, WEB_PORT } from "./ports";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
export const WEB_ROOT = path.join(REPO_ROOT, "apps/web");

/**
 * What the global setup started, shared with test workers through env (Playwright passes the
 * setup's `process.env` on) and with the teardown through a state file (a worker that restarts
 * the API records the new pid there).
 */
export interface StackEnv {
  database_url: string;
  workspace_root: string;
  state_dir: string;
  api_url: string;
  web_url: string;
  admin_token: string;
  member_token: string;
}

const ENV_KEY = "PARLEY_E2E_STACK";

/** The servers a run starts: the API, the web app, and a second web app with the local sign-in link. */
export type ServerName = "api" | "web" | "web-local";

export function writeStackEnv(stack: StackEnv): void {
  process.env[ENV_KEY] = JSON.stringify(stack);
}

export function readStackEnv(): StackEnv {
  const raw = process.env[ENV_KEY];
  if (!raw) throw new Error(`${ENV_KEY} is not set: run through playwright.config.ts (global setup)`);
  return JSON.parse(raw) as StackEnv;
}

function pidFile(state_dir: string, name: ServerName): string {
  return path.join(state_dir, `${name}.pid`);
}

export function readPid(state_dir: string, name: ServerName): number | null {
  try {
    const pid = Number(readFileSync(pidFile(state_dir, name), "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** True when something already listens on the port (a stale server would make the run lie). */
export function isPortBusy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

async function waitForHttp(url: string, what: string, logFile: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = "";
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
      lastError = `HTTP ${response.status}`;
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  let log = "";
  try {
    log = readFileSync(logFile, "utf8").slice(-4000);
  } catch {}
  throw new Error(`${what} did not answer at ${url} (${lastError}). Log ${logFile}:\n${log}`);
}

/**
 * Starts a detached server whose output goes to a log file and records its pid, so the teardown
 * (another process) can stop it, even after a test restarted it.
 */
function startDetached(options: {
  name: ServerName;
  state_dir: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}): number {
  mkdirSync(options.state_dir, { recursive: true });
  const logFile = path.join(options.state_dir, `${options.name}.log`);
  const log = openSync(logFile, "a");
  const child = spawn(process.execPath, options.args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ["ignore", log, log],
  });
  closeSync(log);
  child.unref();
  if (child.pid === undefined) throw new Error(`could not start the ${options.name} server`);
  writeFileSync(pidFile(options.state_dir, options.name), String(child.pid));
  return child.pid;
}

export async function startApi(
  stack: Pick<StackEnv, "database_url" | "workspace_root" | "state_dir">,
): Promise<void> {
  startDetached({
    name: "api",
    state_dir: stack.state_dir,
    cwd: REPO_ROOT,
    args: [path.join(REPO_ROOT, "apps/api/dist/main.js")],
    env: {
      ...process.env,
      DATABASE_URL: stack.database_url,
      PORT: String(API_PORT),
      HOST: "127.0.0.1",
      PARLEY_MODEL: "demo",
      // A second model, so the model pickers show (models.spec.ts).
      PARLEY_MODELS: "demo:alt",
      PARLEY_WORKSPACE_ROOT: stack.workspace_root,
      LOG_LEVEL: "warn",
    },
  });
  await waitForHttp(`http://127.0.0.1:${API_PORT}/healthz`, "The API", path.join(stack.state_dir, "api.log"));
}

/**
 * The web app's server (`apps/web/server.mjs`, as the root `npm start` runs it) against the test
 * API. `local` plays `npm start`, which hands the web server the local admin token and the one-time
 * code of the sign-in link it prints (`localSignInUrl`).
 */
export async function startWeb(
  stack: Pick<StackEnv, "state_dir">,
  options: { name?: ServerName; port?: number; local?: { token: string; code: string } } = {},
): Promise<string> {
  const name = options.name ?? "web";
  const port = options.port ?? WEB_PORT;
  startDetached({
    name,
    state_dir: stack.state_dir,
    cwd: WEB_ROOT,
    args: [path.join(WEB_ROOT, "server.mjs")],
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      WEB_PORT: String(port),
      HOST: "127.0.0.1",
      PARLEY_API_URL: `http://127.0.0.1:${API_PORT}`,
      PARLEY_LOCAL_TOKEN: options.local?.token ?? "",
      PARLEY_SIGN_IN_CODE: options.local?.code ?? "",
    },
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/sign-in`, "The web app", path.join(stack.state_dir, `${name}.log`));
  return url;
}

/** The link `npm start` prints for a web server started with `local.code`. */
export function localSignInUrl(web_url: string, code: string): string {
  return `${web_url}/local-sign-in?code=${encodeURIComponent(code)}`;
}

/** Stops a recorded server: SIGTERM to its process group, SIGKILL if it lingers. */
export async function stopServer(state_dir: string, name: ServerName, signal: NodeJS.Signals = "SIGTERM") {
  const pid = readPid(state_dir, name);
  if (pid === null) return;
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  try {
    process.kill(-pid, signal);
  } catch {
    return;
  }
  const deadline = Date.now() + 10_000;
  while (alive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  if (alive()) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {}
  }
}

/** `npm run parley -- token create --user NAME [--admin]`: the token is the last stdout line. */
export function createToken(database_url: string, name: string, admin: boolean): string {
  const result = spawnSync(
    process.execPath,
    [
      path.join(REPO_ROOT, "apps/api/dist/cli.js"),
      "token",
      "create",
      "--user",
      name,
      ...(admin ? ["--admin"] : []),
    ],
    { cwd: REPO_ROOT, env: { ...process.env, DATABASE_URL: database_url }, encoding: "utf8" },
  );
  if (result.status !== 0) throw new Error(`token create failed: ${result.stderr}`);
  const token = result.stdout.trim().split("\n").at(-1)?.trim();
  if (!token) throw new Error(`token create printed no token: ${result.stdout}`);
  return token;
}
