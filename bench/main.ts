import { measureConcurrency } from "./concurrent.js";
import { measureCycle } from "./cycle.js";
import { measureFloor } from "./floor.js";
import { measureIdleWaiting } from "./idle-waiting.js";
import { measureInbox } from "./inbox.js";
import { describeMachine } from "./lib/machine.js";
import { closeProblems } from "./lib/parley-stack.js";
import { startBenchPostgresServer } from "./lib/postgres-server.js";
import { applyFloors, type BenchReport, type Figure, renderTable, writeReport } from "./lib/report.js";
import { resolveScale } from "./lib/scale.js";
import type { Suite, SuiteContext } from "./lib/suite.js";
import { comparePeer, measurePeer, renderComparison } from "./peer.js";
import { measureRace } from "./race.js";
import { measureRecovery } from "./recovery.js";
import { measureStreaming } from "./streaming.js";
import { measureWaitingSessions } from "./waiting.js";

const PRIVATE_POSTGRES_PORT = 4510;
const FIRST_LISTEN_PORT = 4520;

const suites: Suite[] = [
  {
    name: "floor",
    run: (context) =>
      measureFloor(context.serverUrl, {
        runs: context.scale.floor_runs,
        concurrency: context.scale.floor_concurrency,
        concurrentRuns: context.scale.floor_concurrent_runs,
      }),
  },
  { name: "cycle", run: measureCycle },
  { name: "concurrent", run: measureConcurrency },
  { name: "inbox", run: measureInbox },
  { name: "recovery", run: measureRecovery },
  { name: "waiting_sessions", run: measureWaitingSessions },
  { name: "idle_waiting", run: measureIdleWaiting },
  { name: "streaming", run: measureStreaming },
  { name: "race", run: measureRace },
  { name: "peer", run: measurePeer },
];

/**
 * `npm run bench [-- suite…]`: starts (or picks) a Postgres server, runs the floor and every suite
 * (or the named ones) in one process, prints the table and writes `bench/results/*.json`.
 */
async function main(): Promise<void> {
  const requested = process.argv.slice(2);
  const unknown = requested.filter((name) => !suites.some((suite) => suite.name === name));
  if (unknown.length > 0) {
    throw new Error(
      `Unknown suite(s) ${unknown.join(", ")}; known: ${suites.map((suite) => suite.name).join(", ")}`,
    );
  }
  const scale = resolveScale(process.env);
  const started_at = new Date().toISOString();
  const log = (message: string) =>
    console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);

  const postgres = await startBenchPostgresServer({
    port: PRIVATE_POSTGRES_PORT,
    settings: { shared_preload_libraries: "pg_stat_statements", "pg_stat_statements.track_planning": "on" },
    log,
  });
  const serverUrl = postgres.url;

  // If every handle closes while a suite still awaits something, Node would exit quietly with code 0
  // and leave the private server running: report it and clean up instead.
  let finished = false;
  process.once("beforeExit", () => {
    if (finished) return;
    console.error("bench stalled: a suite awaited something that can no longer happen");
    process.exitCode = 1;
    void postgres.destroy();
  });

  let port = FIRST_LISTEN_PORT;
  const details: Record<string, unknown> = {};
  const context: SuiteContext = {
    scale,
    serverUrl,
    privateServer: postgres.isPrivate,
    nextPort: () => {
      if (port > 4599) throw new Error("bench ran out of its port range 4500–4599");
      return port++;
    },
    log,
    record: (key, value) => {
      details[key] = value;
    },
  };

  const figures: Figure[] = [];
  const failures: BenchReport["failures"] = [];
  try {
    const machine = await describeMachine(serverUrl);
    for (const suite of suites) {
      if (requested.length > 0 && !requested.includes(suite.name) && suite.name !== "floor") continue;
      log(`suite ${suite.name} (scale ${scale.name})`);
      try {
        figures.push(...(await suite.run(context)));
      } catch (error) {
        const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
        log(`suite ${suite.name} failed: ${message}`);
        failures.push({ suite: suite.name, error: message });
      }
    }
    if (closeProblems.length > 0) details.close_problems = closeProblems;
    const report: BenchReport = {
      started_at,
      finished_at: new Date().toISOString(),
      scale: scale.name,
      machine,
      figures: applyFloors(figures),
      details,
      failures,
    };
    console.log(renderTable(report.figures));
    const comparison = comparePeer(report.figures);
    report.details.parley_vs_langgraph = comparison;
    if (comparison.length > 0) console.log(`\n${renderComparison(comparison)}`);
    console.log(
      `\nmachine: ${machine.nproc} cores (${machine.cpu_model}), ${machine.memory_total_mib} MiB, load ${machine.load_average_1m.toFixed(2)}; ${machine.postgres_version.split(",")[0]}; node ${machine.node}`,
    );
    const path = writeReport(report);
    console.log(`written: ${path}`);
    if (failures.length > 0) {
      console.log(`FAILED suites: ${failures.map((failure) => failure.suite).join(", ")}`);
      process.exitCode = 1;
    }
  } finally {
    finished = true;
    await postgres.destroy();
  }
}

// A CLI run ends when its report is written, even if a component under test left a handle open
// (the report names any close that failed).
main().then(
  () => process.exit(),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
