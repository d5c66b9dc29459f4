// respond → the waiting tool continuing, measured from `respond()` to the tool's next line:
//   npm run respond-resumed -w @parley/bench
// over the in-memory store/bus/leases (no persistence cost: what remains is the runtime's own), and
// with BENCH_DATABASE_URL=postgres://… over @parley/db in a fresh database dropped at the end.
// "same" responds in the process running the Turn (A); "cross" responds in another runtime (B, with
// its own pool, LISTEN connection and leases on Postgres). Counts store calls and SQL statements
// (every connection of this process) of the last cycle. BENCH_LATENCY_MS=n (in memory only) delays
// every store call and lease acquisition by n ms, a simulated database round trip: the result then
// shows how many round trips the runtime waits for one after another, undisturbed by the machine's
// load. BENCH_PARK_GRACE_MS=n sets both runtimes' grace before parking (0: every answer claims a
// parked Turn; the default grace: "same" answers reach the held Turn, "cross" ones cannot claim it).
// Not a test: numbers vary with the load.
import { createDatabase } from "@parley/db";
import { createScratchDatabase } from "@parley/db/testing";
import { InMemoryEventBus, InMemoryLeaseRegistry, InMemorySessionStore } from "@parley/session-core";
import pg from "pg";
import { measureRespondResumed, type RespondResumedSamples } from "./lib/respond-resumed-cycles.js";
import { summarizeMs } from "./lib/stats.js";

const CYCLES = Number(process.env.BENCH_CYCLES ?? 200);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 0);
const PARK_GRACE_MS =
  process.env.BENCH_PARK_GRACE_MS === undefined ? undefined : Number(process.env.BENCH_PARK_GRACE_MS);

function report({ same, cross, calls_until_resumed }: RespondResumedSamples) {
  return { same_process: summarizeMs(same), cross_process: summarizeMs(cross), calls_until_resumed };
}

const url = process.env.BENCH_DATABASE_URL || undefined;
if (url === undefined) {
  const store = new InMemorySessionStore();
  const bus = new InMemoryEventBus();
  const leases = new InMemoryLeaseRegistry({ epochs: store });
  const samples = await measureRespondResumed(
    { store, bus, leases: leases.forProcess("A") },
    { store, bus, leases: leases.forProcess("B") },
    { cycles: CYCLES, latency_ms: LATENCY_MS, park_grace_ms: PARK_GRACE_MS },
  );
  console.log(
    JSON.stringify({ ports: "in-memory", latency_ms: LATENCY_MS, cycles: CYCLES, ...report(samples) }),
  );
} else {
  const scratch = await createScratchDatabase(url, "parley_bench_sc");
  try {
    const a = await createDatabase({ url: scratch.url, holder_id: "bench:A" });
    const b = await createDatabase({ url: scratch.url, migrate: false, holder_id: "bench:B" });
    const statements: { count: number | undefined } = { count: undefined };
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
      if (statements.count !== undefined) statements.count += 1;
      return (query as (...forwarded: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    const samples = await measureRespondResumed(a, b, {
      cycles: CYCLES,
      statements,
      park_grace_ms: PARK_GRACE_MS,
    });
    await a.close();
    await b.close();
    console.log(
      JSON.stringify({ ports: "postgres", cycles: CYCLES, park_grace_ms: PARK_GRACE_MS, ...report(samples) }),
    );
  } finally {
    await scratch.drop();
  }
}
