import {
  composeRuntime,
  define_agent_tool,
  type EventBus,
  type Session,
  type SessionStore,
  type TurnLeaseManager,
} from "@parley/session-core";
import { createScriptedModel } from "@parley/session-core/testing";
import { z } from "zod";

/** What one runtime of the measurement runs on: a store, a bus and leases of its own process. */
export interface RuntimePorts {
  store: SessionStore;
  bus: EventBus;
  leases: TurnLeaseManager;
}

export interface RespondResumedOptions {
  cycles: number;
  /**
   * Delays every store call and lease acquisition by this many ms, a simulated database round
   * trip (in-memory ports only): the figure then shows how many round trips the runtime waits for
   * one after another, undisturbed by the machine's load. 0: no delay.
   */
  latency_ms?: number;
  /**
   * `PARLEY_PARK_GRACE_MS` of both runtimes (default: the runtime's). The answers follow their
   * questions at once, so with a grace the "same" answers reach a held Turn and the "cross" ones
   * cannot claim it; with 0 every answer claims a parked Turn.
   */
  park_grace_ms?: number;
  /**
   * SQL statements counter the caller increments while `count` is a number: each measured respond
   * sets it to 0 and the cycle's count is reported with the store calls.
   */
  statements?: { count: number | undefined };
}

export interface RespondResumedSamples {
  /** ms from `respond()` in the process running the Turn (A) to the tool continuing. */
  same: number[];
  /** ms from `respond()` in the other runtime (B) to the tool continuing in A. */
  cross: number[];
  /** Store calls (and SQL statements) between respond and resumed, of the last cycle of each kind. */
  calls_until_resumed: Record<string, Record<string, number>>;
}

function roundTrip(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Counts store method calls while `counts` is set (and adds the simulated round trip to each). */
class StoreCalls {
  counts: Record<string, number> | undefined;

  constructor(private readonly latency_ms: number) {}

  wrap(store: SessionStore): SessionStore {
    return new Proxy(store, {
      get: (target, key, receiver) => {
        const value = Reflect.get(target, key, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          if (this.counts) this.counts[String(key)] = (this.counts[String(key)] ?? 0) + 1;
          if (this.latency_ms === 0) return value.apply(target, args);
          return roundTrip(this.latency_ms).then(() => value.apply(target, args));
        };
      },
    });
  }
}

function slowLeases(leases: TurnLeaseManager, latency_ms: number): TurnLeaseManager {
  if (latency_ms === 0) return leases;
  return {
    acquire: async (session_id) => {
      await roundTrip(latency_ms);
      return leases.acquire(session_id);
    },
    lock: async (session_id) => {
      await roundTrip(latency_ms);
      return leases.lock(session_id);
    },
  };
}

/**
 * respond → the waiting tool continuing: A runs a Turn whose tool waits for an approval; the answer
 * goes through B (its own ports, as another process would have) or through A itself, alternately,
 * `cycles` times each. Measured from `respond()` to the tool's next line, in one process and on
 * one monotonic clock.
 */
export async function measureRespondResumed(
  a: RuntimePorts,
  b: RuntimePorts,
  options: RespondResumedOptions,
): Promise<RespondResumedSamples> {
  const latency_ms = options.latency_ms ?? 0;
  const statements = options.statements;
  const calls = new StoreCalls(latency_ms);
  let resumed: ((at: number) => void) | undefined;
  const tool = define_agent_tool({
    description: "Waits for approval, then notes when it continued.",
    input_schema: z.object({}),
    // It acts only after its approval (the cycle measured): no checkpoint before `execute`.
    side_effects: "after_asking",
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
  const runtime = (ports: RuntimePorts) =>
    composeRuntime({
      adapters: { ...ports, store: calls.wrap(ports.store) },
      agent: { agent_id: "agent:bench", model, tools: { gated: tool } },
      ...(options.park_grace_ms === undefined ? {} : { park_grace_ms: options.park_grace_ms }),
    });
  const composedA = runtime({ ...a, leases: slowLeases(a.leases, latency_ms) });
  const composedB = runtime({ ...b, leases: slowLeases(b.leases, latency_ms) });
  const runtimeA = composedA.runtime;
  const sessionA = await runtimeA.createSession({ owner_id: "bench", agent_id: "agent:bench" });
  const sessionB = (await composedB.runtime.openSession(sessionA.id)) as Session;
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
  for (let index = 0; index < options.cycles; index += 1) {
    cross.push(await cycle(sessionB, "cross"));
    same.push(await cycle(sessionA, "same"));
  }
  await composedA.close();
  await composedB.close();
  return { same, cross, calls_until_resumed: counted };
}
