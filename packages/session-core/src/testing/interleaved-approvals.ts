import type { Session } from "../runtime/session/session-facade.js";
import type { AnyAgentTool } from "../tools/define-agent-tool.js";
import { createApprovalTool } from "./approval-tool.js";
import { createScriptedModel, type ScriptedModel } from "./scripted-model.js";

// Approval cycles of many sessions at once over several processes, in a random interleaving:
// prompts and answers through any process, two answers to one Interaction at once (one through
// each of two processes), steers queued behind a waiting Turn (they join it: it asks again),
// stops while it waits. Run on the in-memory ports with jittered store calls
// (`runtime/tests/interleaving.test.ts`) and on PostgreSQL (`@parley/db`'s
// `interleaving.int.test.ts`); what it reports must hold for every interleaving.

/**
 * The seed of a run: `repeated` (a test passes `INTERLEAVING_SEED`, to run one again) when given,
 * else a new one. A test puts it in its name, so that a failing interleaving can be run again.
 */
export function interleavingSeed(repeated: string | undefined): number {
  return repeated === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(repeated);
}

/** mulberry32: a small seeded generator, so that a failing interleaving can be run again. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/**
 * The agent of the scenario: each user message (a prompt, or a steer that joined the Turn) gets
 * one call of `guarded`, which asks for approval and records its side effect in `effects`; a tool
 * result gets the closing text.
 */
export function interleavedApprovalAgent(): {
  model: ScriptedModel;
  tools: Record<string, AnyAgentTool>;
  effects: string[];
} {
  let calls = 0;
  const model = createScriptedModel((call) => {
    if (call.prompt.at(-1)?.role === "tool") return [{ text: "done" }];
    calls += 1;
    return [{ tool_call: { id: `call_${calls}`, name: "guarded", input: { path: `file_${calls}` } } }];
  });
  const { tool, effects } = createApprovalTool("guarded");
  return { model, tools: { guarded: tool }, effects };
}

export interface InterleavedApprovalsOptions {
  /** The session as process `process` opens it. */
  open(process: string, session_id: string): Promise<Session | null>;
  processes: readonly [string, string, ...string[]];
  session_ids: readonly string[];
  cycles: number;
  random: () => number;
  /** A step that waits this long for its next state is stuck. */
  stuck_ms: number;
}

export interface InterleavedApprovalsOutcome {
  /** Answers that approved a tool (each must have run its side effect once). */
  approvals: number;
  /** Interactions answered twice at once. */
  doubles: number;
  /** What went against the rules: several winners of one Interaction, a Turn that ended wrongly. */
  problems: string[];
}

function within<T>(what: string, promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`stuck for ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, stuck]).finally(() => clearTimeout(timer));
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const approve = (interaction_id: string) => ({
  interaction_id,
  response: { type: "approval", outcome: "resolved" as const, payload: { decision: "approved" } },
});

/** Runs `cycles` approval cycles in each session, all sessions at once (see the file's comment). */
export async function runInterleavedApprovals(
  options: InterleavedApprovalsOptions,
): Promise<InterleavedApprovalsOutcome> {
  const { processes, random, stuck_ms } = options;
  const outcome: InterleavedApprovalsOutcome = {
    approvals: 0,
    doubles: 0,
    problems: [],
  };
  const via = async (session_id: string, process?: string): Promise<Session> => {
    const name = process ?? processes[Math.floor(random() * processes.length)] ?? processes[0];
    const session = await options.open(name, session_id);
    if (!session) throw new Error(`session ${session_id} not found through ${name}`);
    return session;
  };
  const pending = async (id: string) => (await (await via(id)).interactions())[0]?.interaction_id;

  const cyclesOf = async (id: string) => {
    let answers = 0;
    for (let cycle = 0; cycle < options.cycles; cycle++) {
      const turn = await within(
        `prompt ${id} #${cycle}`,
        (await via(id)).prompt({ query: `go ${cycle}` }),
        stuck_ms,
      );
      let finished = false;
      void turn.finished.then(() => {
        finished = true;
      });
      let steered = false;
      let stopped = false;
      let waitingSince = Date.now();
      while (!finished) {
        const interaction_id = await pending(id);
        if (interaction_id === undefined) {
          if (Date.now() - waitingSince > stuck_ms) throw new Error(`stuck: ${id} #${cycle} asks nothing`);
          await pause(1);
          continue;
        }
        const roll = random();
        if (roll < 0.25 && !steered) {
          // Joins the waiting Turn: after this answer, the Turn asks once more.
          steered = true;
          await within(
            `steer ${id} #${cycle}`,
            (await via(id)).prompt({ query: `steer ${cycle}` }),
            stuck_ms,
          );
        } else if (roll > 0.92) {
          stopped = true;
          await within(`stop ${id} #${cycle}`, (await via(id)).stop(), stuck_ms);
          break;
        }
        // A session's first answer is always sent twice, so that every run races at least once.
        if (answers === 0 || random() < 0.2) {
          outcome.doubles += 1;
          const [first, second] = processes;
          const settled = await within(
            `two answers ${id} #${cycle}`,
            Promise.allSettled(
              [first, second].map(async (name) => (await via(id, name)).respond(approve(interaction_id))),
            ),
            stuck_ms,
          );
          const won = settled.filter((answer) => answer.status === "fulfilled").length;
          if (won !== 1) outcome.problems.push(`${id} #${cycle}: ${won} of two simultaneous answers won`);
        } else {
          await within(`answer ${id} #${cycle}`, (await via(id)).respond(approve(interaction_id)), stuck_ms);
        }
        answers += 1;
        outcome.approvals += 1;
        waitingSince = Date.now();
        // The answered tool runs on; the Turn then asks again (a steer joined) or finishes.
        while (!finished && (await pending(id)) === interaction_id) await pause(1);
      }
      const result = await within(`finish ${id} #${cycle}`, turn.finished, stuck_ms);
      if (result.success === stopped) {
        outcome.problems.push(`${id} #${cycle}: ${JSON.stringify(result)} (stopped: ${stopped})`);
      }
    }
  };
  await Promise.all(options.session_ids.map(cyclesOf));
  return outcome;
}
