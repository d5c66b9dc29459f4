import { expect, it } from "vitest";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import type { Session } from "../session/session-facade.js";
import { createApprovalTool } from "./tools.js";

// Many approval cycles at once over two processes, every store call answered after a random number
// of event-loop turns (so that calls interleave as round trips to a database do): prompts and
// answers through either process, two answers to one Interaction at once, steers queued behind a
// waiting Turn, stops while it waits. The interleaving is random (the seed is in the test's name;
// `INTERLEAVING_SEED` repeats one). What is asserted holds for every interleaving: each approved
// tool's side effect ran exactly once, one of two simultaneous answers won, every Turn ended as it
// should, and none stayed stuck. Invariants, not timings: a wake-up lost and picked up by the
// liveness pass a second later passes here (`queue-wake.test.ts` holds such a case).

const SESSIONS = 4;
const CYCLES = 12;
/** A Turn that waits this long for its next state is stuck (the liveness pass runs every second). */
const STUCK_MS = 20_000;
const SEED = Number(process.env.INTERLEAVING_SEED ?? Math.floor(Math.random() * 2 ** 31));

/** mulberry32: a small seeded generator, so that a failing interleaving can be run again. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

function within<T>(what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`stuck for ${STUCK_MS} ms: ${what}`)), STUCK_MS);
  });
  return Promise.race([promise, stuck]).finally(() => clearTimeout(timer));
}

const approve = (interaction_id: string) => ({
  interaction_id,
  response: { type: "approval", outcome: "resolved" as const, payload: { decision: "approved" } },
});

it(`approval cycles over two processes under random interleaving keep every tool exactly once (seed ${SEED})`, {
  timeout: 120_000,
}, async () => {
  const random = seededRandom(SEED);
  let calls = 0;
  // Each user message (a prompt, or a steer that joined the Turn) gets one tool call; a tool result
  // gets the closing text.
  const model = createScriptedModel((call) => {
    if (call.prompt.at(-1)?.role === "tool") return [{ text: "done" }];
    calls += 1;
    return [{ tool_call: { id: `call_${calls}`, name: "guarded", input: { path: `file_${calls}` } } }];
  });
  const { tool, effects } = createApprovalTool("guarded");
  const harness = new RuntimeHarness({
    model,
    tools: { guarded: tool },
    store_latency: () =>
      new Promise<void>((resolve) => {
        let turns = Math.floor(random() * 4);
        const next = () => (turns-- <= 0 ? resolve() : setImmediate(next));
        next();
      }),
  });
  const processes = ["A", "B"] as const;
  const via = async (session_id: string): Promise<Session> => {
    const session = await harness.runtime(processes[random() < 0.5 ? 0 : 1]).openSession(session_id);
    if (!session) throw new Error(`session ${session_id} not found`);
    return session;
  };
  const counts = { approvals: 0, doubles: 0, steers: 0, stops: 0 };
  const problems: string[] = [];

  const sessions = await Promise.all(
    Array.from({ length: SESSIONS }, (_, index) =>
      harness.createSession({ process_id: processes[index % 2] }),
    ),
  );
  await Promise.all(
    sessions.map(async ({ id }) => {
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const turn = await within(`prompt ${id} #${cycle}`, (await via(id)).prompt({ query: `go ${cycle}` }));
        let finished = false;
        void turn.finished.then(() => {
          finished = true;
        });
        let steered = false;
        let stopped = false;
        let waitingSince = performance.now();
        while (!finished) {
          const pending = (await (await via(id)).interactions())[0]?.interaction_id;
          if (pending === undefined) {
            if (performance.now() - waitingSince > STUCK_MS)
              throw new Error(`stuck: ${id} #${cycle} asks nothing`);
            await new Promise((resolve) => setTimeout(resolve, 1));
            continue;
          }
          const roll = random();
          if (roll < 0.25 && !steered) {
            // Joins the waiting Turn: after this answer, the Turn asks once more.
            steered = true;
            counts.steers += 1;
            await within(`steer ${id} #${cycle}`, (await via(id)).prompt({ query: `steer ${cycle}` }));
          } else if (roll > 0.92) {
            stopped = true;
            counts.stops += 1;
            await within(`stop ${id} #${cycle}`, (await via(id)).stop());
            break;
          }
          if (random() < 0.2) {
            counts.doubles += 1;
            const outcomes = await within(
              `two answers ${id} #${cycle}`,
              Promise.allSettled(
                processes.map(async (name) => {
                  const session = await harness.runtime(name).openSession(id);
                  return session?.respond(approve(pending));
                }),
              ),
            );
            const won = outcomes.filter((outcome) => outcome.status === "fulfilled").length;
            if (won !== 1) problems.push(`${id} #${cycle}: ${won} of two simultaneous answers won`);
          } else {
            await within(`answer ${id} #${cycle}`, (await via(id)).respond(approve(pending)));
          }
          counts.approvals += 1;
          waitingSince = performance.now();
          // The answered tool runs on; the Turn then asks again (a steer joined) or finishes.
          while (!finished && (await (await via(id)).interactions())[0]?.interaction_id === pending) {
            await new Promise((resolve) => setTimeout(resolve, 1));
          }
        }
        const result = await within(`finish ${id} #${cycle}`, turn.finished);
        if (result.success === stopped)
          problems.push(`${id} #${cycle}: ${JSON.stringify(result)} (stopped: ${stopped})`);
      }
    }),
  );

  // Every interleaving exercised the paths this test is for.
  expect(counts.doubles).toBeGreaterThan(0);
  expect(problems).toEqual([]);
  expect(effects).toHaveLength(counts.approvals);
  expect(new Set(effects).size).toBe(effects.length);
  await harness.shutdown();
});
