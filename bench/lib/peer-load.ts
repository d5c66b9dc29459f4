import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { createScratchDatabase } from "@parley/db/testing";
import type { LoadRunnerResult } from "../peer/load-runner.js";
import { BackendCpu } from "./backend-cpu.js";
import { clockTicksPerSecond, readProcStat } from "./proc-cpu.js";
import { type Figure, latencyFigure, valueFigure } from "./report.js";
import type { BenchScale } from "./scale.js";
import { summarize, WAIT_MS, within } from "./stats.js";

/**
 * The peer under the load test's load: `load_sessions` LangGraph threads × `load_cycles_per_session`
 * approval cycles, all at once, in a process of its own (`bench/peer/load-runner.ts`) on a scratch
 * database of the same Postgres server. Measures its cycles/s, the runner process's CPU and the CPU
 * of the database's backends over the same window, as `load.ts` measures Parley's instances.
 */
export async function runPeerLoad(
  serverUrl: string,
  scale: BenchScale,
): Promise<{ figures: Figure[]; errors: string[]; timedOut: boolean }> {
  const scratch = await createScratchDatabase(serverUrl, "peer_load");
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      new URL("../peer/load-runner.ts", import.meta.url).pathname,
      scratch.url,
      String(scale.load_sessions),
      String(scale.load_cycles_per_session),
      String(scale.load_time_limit_s),
    ],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const nextLine = async (what: string): Promise<unknown> => {
    const line = await within(
      Promise.race([
        lines.next(),
        exited.then((code) => Promise.reject(new Error(`peer load runner exited with ${code}`))),
      ]),
      WAIT_MS,
      what,
    );
    if (line.done) throw new Error(`peer load runner closed its output before ${what}`);
    return JSON.parse(line.value) as unknown;
  };
  const ticksPerSecond = clockTicksPerSecond();
  const cpuMs = () => {
    const stat = child.pid === undefined ? null : readProcStat(child.pid);
    return stat ? ((stat.utime + stat.stime) * 1000) / ticksPerSecond : Number.NaN;
  };
  try {
    await nextLine("the peer load runner to be ready");
    const backends = await BackendCpu.start(serverUrl, scratch.name);
    const cpuBefore = cpuMs();
    child.stdin.write("go\n");
    const result = (await nextLine("the peer load to finish")) as LoadRunnerResult;
    const cpu = cpuMs() - cpuBefore;
    const postgres = await backends.stop();
    const cycles = result.latencies.length;
    const per = (ms: number) => ms / Math.max(1, cycles);
    const load = `${scale.load_sessions} threads at once × ${scale.load_cycles_per_session} cycles`;
    const figures = [
      valueFigure("peer_load_cycles_per_s", "1/s", cycles / result.seconds, cycles, {
        note: `LangGraph + PostgresSaver in one process, pg.Pool max 10; ${load}`,
      }),
      latencyFigure("peer_load_cycle_ms", summarize(cycles > 0 ? result.latencies : [Number.NaN]), {
        note: "invoke → interrupt → Command({ resume }) → tool ran, per cycle",
      }),
      valueFigure("peer_load_cpu_ms_per_cycle", "ms", per(cpu), cycles, {
        note: "user + system CPU of the peer's process during the load ÷ cycles (/proc, 10 ms ticks)",
      }),
      valueFigure("peer_load_postgres_cpu_ms_per_cycle", "ms", per(postgres.cpu_ms), cycles, {
        note: `CPU of the peer database's ${postgres.backends} Postgres backends during the load ÷ cycles (/proc)`,
      }),
      valueFigure("peer_load_errors", "count", result.errors.length, cycles + result.errors.length),
    ];
    return { figures, errors: [...new Set(result.errors)], timedOut: result.timed_out };
  } finally {
    child.stdin.end();
    await within(exited, WAIT_MS, "the peer load runner to exit").catch(() => child.kill("SIGKILL"));
    await scratch.drop();
  }
}
