// Where one approval cycle waits, call by call:
//   npm run timeline -w @parley/bench            (BENCH_DATABASE_URL, else DATABASE_URL, else 127.0.0.1)
// Runs the bench's API stack (as `npm run bench` does) and prints, for the last cycles, every store,
// lease and bus call with its start and duration, and the moment each HTTP request reached the
// server: prompt() → tool asks → waiting-user at the client, then respond() → the tool continuing. Calls that overlap ran side by side; one that starts
// when the previous ends waited for it. Not a measurement to compare runs with (the figures are
// `npm run bench`'s): it shows the shape of the path, e.g. how many round trips wait in a row.
import http from "node:http";
import { NoticeEventBus, PostgresTurnLeaseManager, PrismaSessionStore } from "@parley/db";
import { BENCH_AGENT_ID } from "./lib/bench-agent.js";
import { startParleyStack } from "./lib/parley-stack.js";
import { APPROVE, pendingInteractionId, watchNewSession } from "./lib/session-watch.js";
import { now } from "./lib/stats.js";

interface Call {
  name: string;
  start: number;
  end: number;
}

const calls: Call[] = [];

/** Records every promise-returning method of `prototype` (all instances) into `calls`. */
function record(prototype: object, label: string): void {
  const methods = prototype as Record<string, unknown>;
  for (const key of Object.getOwnPropertyNames(prototype)) {
    // Methods only: reading a getter on the prototype would run it without an instance.
    const original: unknown = Object.getOwnPropertyDescriptor(prototype, key)?.value;
    if (key === "constructor" || typeof original !== "function") continue;
    methods[key] = function (this: unknown, ...args: unknown[]) {
      const start = now();
      const result: unknown = original.apply(this, args);
      if (!(result instanceof Promise)) return result;
      return result.finally(() => calls.push({ name: `${label}.${key}`, start, end: now() }));
    };
  }
}

function print(title: string, from: number, until: number): void {
  console.log(title);
  for (const call of calls.filter((entry) => entry.start <= until).sort((a, b) => a.start - b.start)) {
    const start = (call.start - from).toFixed(2).padStart(7);
    const took = (call.end - call.start).toFixed(2).padStart(6);
    console.log(`${start} ms  ${took} ms  ${call.name}`);
  }
  calls.length = 0;
}

/** Notes when each HTTP request reaches a server of this process (an instant: start = end). */
function recordHttpArrivals(): void {
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]) {
    if (event === "request") {
      const request = args[0] as http.IncomingMessage;
      const at = now();
      calls.push({
        name: `http ${request.method} ${request.url?.split("?")[0]} arrives`,
        start: at,
        end: at,
      });
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  } as typeof emit;
}

recordHttpArrivals();
record(PrismaSessionStore.prototype, "store");
record(PostgresTurnLeaseManager.prototype, "lease");
record(NoticeEventBus.prototype, "bus");

const RUNS = Number(process.env.BENCH_TIMELINE_RUNS ?? 12);
const SHOWN = 2;
const serverUrl =
  process.env.BENCH_DATABASE_URL ??
  process.env.DATABASE_URL ??
  "postgresql://postgres@127.0.0.1:5432/postgres";
const stack = await startParleyStack({ serverUrl, port: 4598 });
try {
  const client = stack.client();
  for (let run = 0; run < RUNS; run++) {
    const key = `timeline${run}`;
    const shown = run >= RUNS - SHOWN;
    const { session, watch, unsubscribe } = await watchNewSession(client, key);
    const pending = watch.waitForToolState("bench_approve", "waiting-user");
    const finished = watch.waitForTurnFinish();
    calls.length = 0;
    const promptedAt = now();
    await session.prompt(`approve ${key}`);
    const seen = await pending;
    const requestedAt = stack.probe.times.get(key)?.requested_at ?? Number.NaN;
    if (shown) {
      print(
        `--- ${key} (agent ${BENCH_AGENT_ID}): prompt() at 0; tool asks at ${(requestedAt - promptedAt).toFixed(2)} ms; waiting-user at the client at ${(seen.at - promptedAt).toFixed(2)} ms`,
        promptedAt,
        seen.at,
      );
    }
    calls.length = 0;
    const respondedAt = now();
    await session.respond({ interaction_id: pendingInteractionId(seen.mutation), response: APPROVE });
    const acknowledgedAt = now();
    await stack.probe.waitResumed(key);
    const resumedAt = stack.probe.times.get(key)?.resumed_at ?? Number.NaN;
    if (shown) {
      print(
        `--- ${key}: respond() at 0; acknowledged at ${(acknowledgedAt - respondedAt).toFixed(2)} ms; the tool continues at ${(resumedAt - respondedAt).toFixed(2)} ms`,
        respondedAt,
        resumedAt,
      );
    }
    await finished;
    unsubscribe();
    stack.probe.forget(key);
  }
} finally {
  await stack.close();
}
