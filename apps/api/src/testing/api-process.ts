import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DROP_NOTICES_ENV } from "../faults/notice-faults.js";

/** The monorepo root: tests spawn the API and the CLI from there, as `npm run …` would. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");

/**
 * Node arguments that run an entry of the API (`main` or `cli`): its build (`apps/api/dist`), as
 * production runs it and half a second sooner than from source (the e2e project's global setup,
 * `built-api-check.ts`, refuses a build older than its sources). With `preloads` (fault hooks,
 * TypeScript of the test-only `faults/` folder that no build emits) the entry runs from
 * `apps/api/src` with tsx instead, so hook and product share one module graph.
 */
export function apiEntryArgs(entry: "main" | "cli", preloads: readonly string[] = []): string[] {
  if (preloads.length === 0) return [path.join(REPO_ROOT, "apps/api/dist", `${entry}.js`)];
  return [
    "--conditions=parley-source",
    "--import",
    "tsx",
    ...preloads.flatMap((preload) => ["--import", preload]),
    path.join(REPO_ROOT, "apps/api/src", `${entry}.ts`),
  ];
}

/**
 * The fault hooks a test asks for through `env`, installed from outside the product: the API never
 * reads PARLEY_FAULT_DROP_NOTICES; its preload loses the notices (faults/notice-faults.ts).
 */
function faultPreloads(env: Record<string, string> | undefined): string[] {
  if (env?.[DROP_NOTICES_ENV] === undefined) return [];
  return [path.join(REPO_ROOT, "apps/api/src/faults/drop-notices-preload.ts")];
}

export interface ApiProcess {
  url: string;
  /** `<PARLEY_WORKSPACE_ROOT>`, a fresh temporary directory per process. */
  workspace_root: string;
  child: ChildProcess;
  /** Everything the process wrote so far (stdout and stderr). */
  output(): string;
  /** Sends the signal and waits for the exit; resolves the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts a real API server process on a fresh port (`PORT=0`) against `database_url`, with the
 * demo model, and waits until it logs that it listens.
 */
export async function startApiProcess(options: {
  database_url: string;
  env?: Record<string, string>;
}): Promise<ApiProcess> {
  const workspace_root = await mkdtemp(path.join(tmpdir(), "parley-e2e-ws-"));
  const child = spawn(process.execPath, apiEntryArgs("main", faultPreloads(options.env)), {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      DATABASE_URL: options.database_url,
      PORT: "0",
      HOST: "127.0.0.1",
      PARLEY_MODEL: "demo",
      PARLEY_WORKSPACE_ROOT: workspace_root,
      LOG_LEVEL: "info",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  const url = await new Promise<string>((resolve, reject) => {
    let buffered = "";
    child.stdout?.setEncoding("utf8");
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      output += chunk;
    });
    child.stdout?.on("data", (chunk: string) => {
      output += chunk;
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) {
        const listening = parseListeningLine(line);
        if (listening !== null) resolve(listening);
      }
    });
    void exited.then((code) =>
      reject(new Error(`API process exited (${code}) before listening:\n${output}`)),
    );
  });

  return {
    url,
    workspace_root,
    child,
    output: () => output,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const code = await exited;
      await rm(workspace_root, { recursive: true, force: true });
      return code;
    },
  };
}

function parseListeningLine(line: string): string | null {
  if (!line.startsWith("{")) return null;
  try {
    const record = JSON.parse(line) as { msg?: unknown; url?: unknown };
    return record.msg === "API listening" && typeof record.url === "string" ? record.url : null;
  } catch {
    return null;
  }
}

/** The outcome of a Node process run to its end. */
export interface NodeRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node …args` from the repo root with `env` added, to its end, capturing both outputs. */
export async function runNode(args: string[], env: Record<string, string>): Promise<NodeRun> {
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { code, stdout, stderr };
}

/** Runs the CLI (`parley token create --user NAME [--admin]`) and returns stdout's last line. */
export async function createTokenWithCli(options: {
  database_url: string;
  user: string;
  admin?: boolean;
}): Promise<{ token: string; stdout: string }> {
  const args = ["token", "create", "--user", options.user];
  if (options.admin) args.push("--admin");
  const { code, stdout, stderr } = await runCli({ database_url: options.database_url, args });
  if (code !== 0) throw new Error(`CLI exited ${code}:\n${stderr}`);
  const lines = stdout.trimEnd().split("\n");
  const token = lines[lines.length - 1] ?? "";
  return { token, stdout };
}

/** Runs the CLI (`parley …args`) against `database_url`; resolves its exit code and output. */
export function runCli(options: { database_url: string; args: string[] }): Promise<NodeRun> {
  return runNode([...apiEntryArgs("cli"), ...options.args], { DATABASE_URL: options.database_url });
}
