import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { clockTicksPerSecond, readProcStat } from "./proc-cpu.js";

/** What `bench/bench-server.ts` prints once it listens. */
export interface BenchServerInfo {
  url: string;
  token: string;
  database_url: string;
}

/** One API process of the load benches (`bench/bench-server.ts`). */
export interface BenchServerProcess {
  info: BenchServerInfo;
  /** Its CPU time so far (user + system), in ms; NaN once it has gone or off Linux. */
  cpuMs(): number;
  /** SIGTERM (it drops a database it made), then waits for the exit; nothing if it already exited. */
  stop(): Promise<void>;
}

/**
 * Starts `bench/bench-server.ts` on `port` against the PostgreSQL server `serverUrl`: it serves
 * `databaseUrl` when given (several instances sharing one database), else a scratch database of its
 * own. `env` is added to this process's environment (`BENCH_BUS`, `BENCH_SHARED_DATABASE_URL` …).
 * `BENCH_SERVER_NODE_OPTIONS` (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") goes on its node command
 * line: a CPU profile of each instance, which `bench/profile-summary.ts` reads.
 */
export async function startBenchServer(options: {
  serverUrl: string;
  port: number;
  databaseUrl?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** Each JSON line it prints after the first (e.g. probe events of `BENCH_PROBE_EVENTS=1`). */
  onLine?: (line: unknown) => void;
}): Promise<BenchServerProcess> {
  const child = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_SERVER_NODE_OPTIONS?.split(" ").filter(Boolean) ?? []),
      "--import",
      "tsx",
      "--conditions=parley-source",
      new URL("../bench-server.ts", import.meta.url).pathname,
      options.serverUrl,
      String(options.port),
      ...(options.databaseUrl ? [options.databaseUrl] : []),
    ],
    { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, ...options.env } },
  );
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const info = await new Promise<BenchServerInfo>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`bench server exited with ${code}`)));
    let first = true;
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (first) resolve(JSON.parse(line) as BenchServerInfo);
      else options.onLine?.(JSON.parse(line));
      first = false;
    });
  });
  const ticksPerSecond = clockTicksPerSecond();
  return {
    info,
    cpuMs: () => {
      const stat = child.pid === undefined ? null : readProcStat(child.pid);
      return stat ? ((stat.utime + stat.stime) * 1000) / ticksPerSecond : Number.NaN;
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
