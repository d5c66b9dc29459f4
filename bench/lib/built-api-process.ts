import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WAIT_MS } from "./stats.js";

const REPO_ROOT = join(import.meta.dirname, "..", "..");
/** What `npm run start:api` runs. */
const API_ENTRY = join(REPO_ROOT, "apps/api/dist/main.js");
/** The workspaces the built API loads from their `dist` (package exports' `default`). */
const BUILT_WORKSPACES = ["apps/api", "packages/session-core", "packages/db", "packages/tools"];

/** Newest modification time (ms) of the files below `directory` whose path `keep` accepts. */
function newestMtime(directory: string, keep: (path: string) => boolean): number {
  if (!existsSync(directory)) return 0;
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile() && keep(path)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** Sources that a build compiles (tests and test helpers are left out by every `tsconfig.build.json`). */
function isBuiltSource(path: string): boolean {
  return (
    path.endsWith(".ts") && !path.endsWith(".test.ts") && !/\/(testing|test-support|faults)\//.test(path)
  );
}

/**
 * The bench measures the API as `npm run start:api` runs it, from `dist`: a missing or older build
 * would measure other code than the sources, so it fails with what to do instead.
 */
function assertBuilt(): void {
  for (const workspace of BUILT_WORKSPACES) {
    const source = newestMtime(join(REPO_ROOT, workspace, "src"), isBuiltSource);
    const built = newestMtime(join(REPO_ROOT, workspace, "dist"), (path) => path.endsWith(".js"));
    if (built === 0 || built < source)
      throw new Error(`${workspace}/dist is missing or older than its sources: run \`npm run build\` first`);
  }
}

export interface BuiltApiProcess {
  url: string;
  pid: number;
  /** Everything it wrote so far (stdout and stderr), for failure messages. */
  output(): string;
  /** SIGTERM (the API drains and releases its leases), then waits for the exit. */
  stop(): Promise<void>;
}

/**
 * Starts `node apps/api/dist/main.js` (what `npm run start:api` runs) on `database_url` with the demo
 * model and the API's defaults otherwise, and waits until `GET /healthz` answers 200.
 * `BENCH_API_NODE_OPTIONS` (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") goes on its node command
 * line, as `BENCH_SERVER_NODE_OPTIONS` does for the load test's processes.
 */
export async function startBuiltApi(options: {
  database_url: string;
  port: number;
}): Promise<BuiltApiProcess> {
  assertBuilt();
  const workspaceRoot = mkdtempSync(join(tmpdir(), "parley-bench-idle-ws-"));
  const nodeOptions = process.env.BENCH_API_NODE_OPTIONS?.split(" ").filter(Boolean) ?? [];
  const child: ChildProcess = spawn(process.execPath, [...nodeOptions, API_ENTRY], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      DATABASE_URL: options.database_url,
      PORT: String(options.port),
      HOST: "127.0.0.1",
      PARLEY_MODEL: "demo",
      PARLEY_WORKSPACE_ROOT: workspaceRoot,
    },
  });
  let output = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  const url = `http://127.0.0.1:${options.port}`;
  const stop = async () => {
    if (!exited) child.kill("SIGTERM");
    await exit;
    rmSync(workspaceRoot, { recursive: true, force: true });
  };
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    if (exited) throw new Error(`API process exited before it was healthy:\n${output}`);
    const healthy = await fetch(`${url}/healthz`).then(
      (response) => response.status === 200,
      () => false,
    );
    if (healthy) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`API process not healthy within ${WAIT_MS} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error("API process has no pid");
  return { url, pid, output: () => output, stop };
}
