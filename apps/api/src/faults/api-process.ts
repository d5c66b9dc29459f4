import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { apiEntryArgs, REPO_ROOT } from "../testing/api-process.js";
import { FAULT_PHASE_ENV, type FaultPhase } from "./kill-switch.js";

export interface ApiProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Resolves when the process ended, with how. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything it wrote to stdout and stderr so far (for failure messages). */
  output(): string;
  kill(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface ApiProcessOptions {
  port: number;
  databaseUrl: string;
  workspaceRoot: string;
  /** Preloads the kill switch: the process SIGKILLs itself at this point of an interaction's life. */
  fault?: FaultPhase;
  env?: Record<string, string>;
}

/**
 * Starts the real API (its build, or its source when a kill switch is preloaded: `apiEntryArgs`;
 * demo model) as a child process and waits until `GET /healthz` answers 200. Real process, real
 * sockets, real Postgres: the fault suite kills it with SIGKILL. Its runtime settings are production's defaults (parking
 * on, recovery every 1 s: DESIGN §10.7), unless `env` says otherwise.
 */
export async function startApiProcess(options: ApiProcessOptions): Promise<ApiProcess> {
  const preloads = options.fault ? [path.join(import.meta.dirname, "kill-switch-preload.ts")] : [];
  const child = spawn(process.execPath, apiEntryArgs("main", preloads), {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl,
      PORT: String(options.port),
      HOST: "127.0.0.1",
      PARLEY_MODEL: "demo",
      PARLEY_WORKSPACE_ROOT: options.workspaceRoot,
      LOG_LEVEL: "warn",
      ...(options.fault ? { [FAULT_PHASE_ENV]: options.fault } : {}),
      ...options.env,
    },
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
  });

  const url = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (hasExited) throw new Error(`API process exited before it became healthy:\n${output}`);
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`API process did not become healthy within 90 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  return {
    url,
    child,
    exited,
    output: () => output,
    kill: async (signal) => {
      if (!hasExited) child.kill(signal);
      return exited;
    },
  };
}
