// respond → the waiting tool continuing, measured from `respond()` to the tool's next line:
//   npx tsx --conditions=parley-source bench/respond-resumed.ts
// over the in-memory store/bus/leases (no persistence cost: what remains is the runtime's own), and
// with BENCH_DATABASE_URL=postgres://… over @parley/db in a fresh database dropped at the end.
// "same" responds in the process running the Turn (A); "cross" responds in another runtime (B, with
// its own pool, LISTEN connection and leases on Postgres). Counts store calls and SQL statements
// (every connection of this process) of the last cycle. BENCH_LATENCY_MS=n (in memory only) delays
// every store call and lease acquisition by n ms, a simulated database round trip: the result then
// shows how many round trips the runtime waits for one after another, undisturbed by the machine's
// load. Not a test: numbers vary with the load.
import * as db from "@parley/db";
import {
  define_agent_tool,
  type EventBus,
  InMemoryEventBus,
  InMemoryLeaseRegistry,
  InMemorySessionStore,
  type Session,
  SessionRuntime,
  type SessionStore,
  type TurnLeaseManager,
} from "@parley/session-core";
import { createScriptedModel } from "@parley/session-core/testing";
import pg from "pg";
import { z } from "zod";
import { summarize } from "./lib/stats.js";

const CYCLES = Number(process.env.BENCH_CYCLES ?? 200);

interface Ports {
  store: SessionStore;
  bus: EventBus;
  leases: TurnLeaseManager;
}

/** The figure in milliseconds, percentiles by the bench's one rule (`lib/stats.ts`). */
function summarizeMs(samples: number[]) {
  const { n, mean, p50, p99 } = summarize(samples);
  const round = (value: number) => Math.round(value * 1000) / 1000;
  return { n, mean_ms: round(mean), p50_ms: round(p50), p99_ms: round(p99) };
}

const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 0);

function roundTrip(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, LATENCY_MS));
}

/** Counts store method calls while `counts` is set (and adds the simulated round trip to each). */
class StoreCalls {
  counts: Record<string, number> | undefined;

  wrap(store: SessionStore): SessionStore {
    return new Proxy(store, {
      get: (target, key, receiver) => {
        const value = Reflect.get(target, key, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          if (this.counts) this.counts[String(key)] = (this.counts[String(key)] ?? 0) + 1;
          if (LATENCY_MS === 0) return value.apply(target, args);
          return roundTrip().then(() => value.apply(target, args));
        };
      },
    });
  }
}

function slowLeases(leases: TurnLeaseManager): TurnLeaseManager {
  if (LATENCY_MS === 0) return leases;
  return {
    acquire: async (session_id) => {
      await roundTrip();
      return leases.acquire(session_id);
    },
  };
}

async function bench(a: Ports, b: Ports, statements?: { count: number | undefined }) {
  const calls = new StoreCalls();
  let resumed: ((at: number) => void) | undefined;
  const tool = define_agent_tool({
    description: "Waits for approval, then notes when it continued.",
    input_schema: z.object({}),
    async execute(_input, context) {
      await context.interactions.approval.request({
        turn_id: context.turn_id,
        tool_call_id: context.tool_call_id,
        tool_name: "gated",
        payload: { operation: "tool" },
      });
      resumed?.(performance.now());
      return { ok: true };
    },
  });
  const model = createScriptedModel((call) =>
    call.prompt.at(-1)?.role === "tool"
      ? [{ text: "ok" }]
      : [{ tool_call: { id: `call_${call.index}`, name: "gated", input: {} } }],
  );
  const runtime = (ports: Ports) =>
    new SessionRuntime({
      ...ports,
      store: calls.wrap(ports.store),
      agents: { get: (agent_id) => ({ agent_id, model, tools: { gated: tool } }) },
    });
  const runtimeA = runtime(a);
  const runtimeB = runtime(b);
  const sessionA = await runtimeA.createSession({ owner_id: "bench", agent_id: "agent:bench" });
  const sessionB = (await runtimeB.openSession(sessionA.id)) as Session;
  const counted: Record<string, Record<string, number>> = {};
  const cycle = async (responder: Session, label: string): Promise<number> => {
    const turn = await sessionA.prompt({ query: "go" });
    let pending = (await sessionA.interactions())[0];
    while (!pending) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      pending = (await sessionA.interactions())[0];
    }
    const continued = new Promise<number>((resolve) => {
      resumed = (at) => {
        counted[label] = {
          ...calls.counts,
          ...(statements ? { sql_statements: statements.count ?? 0 } : {}),
        };
        calls.counts = undefined;
        if (statements) statements.count = undefined;
        resolve(at);
      };
    });
    calls.counts = {};
    if (statements) statements.count = 0;
    const start = performance.now();
    await responder.respond({
      interaction_id: pending.interaction_id,
      response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
    });
    const elapsed = (await continued) - start;
    await turn.finished;
    return elapsed;
  };
  const same: number[] = [];
  const cross: number[] = [];
  for (let index = 0; index < CYCLES; index += 1) {
    cross.push(await cycle(sessionB, "cross"));
    same.push(await cycle(sessionA, "same"));
  }
  await runtimeA.shutdown();
  await runtimeB.shutdown();
  return {
    same_process: summarizeMs(same),
    cross_process: summarizeMs(cross),
    calls_until_resumed: counted,
  };
}

const url = process.env.BENCH_DATABASE_URL || undefined;
if (url === undefined) {
  const store = new InMemorySessionStore();
  const bus = new InMemoryEventBus();
  const leases = new InMemoryLeaseRegistry({ epochs: store });
  const result = await bench(
    { store, bus, leases: slowLeases(leases.forProcess("A")) },
    { store, bus, leases: slowLeases(leases.forProcess("B")) },
  );
  console.log(JSON.stringify({ ports: "in-memory", latency_ms: LATENCY_MS, cycles: CYCLES, ...result }));
} else {
  const name = `parley_bench_sc_${process.pid}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${db.quoteIdentifier(name)}`);
  try {
    const databaseUrl = db.withDatabaseName(url, name);
    const a = await db.createDatabase({ url: databaseUrl, holder_id: "bench:A" });
    const b = await db.createDatabase({ url: databaseUrl, migrate: false, holder_id: "bench:B" });
    const statements: { count: number | undefined } = { count: undefined };
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
      if (statements.count !== undefined) statements.count += 1;
      return (query as (...forwarded: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    const result = await bench(a, b, statements);
    await a.close();
    await b.close();
    console.log(JSON.stringify({ ports: "postgres", cycles: CYCLES, ...result }));
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${db.quoteIdentifier(name)} WITH (FORCE)`);
    await admin.end();
  }
}
