import { createTestDatabase, LOG_ENTRIES, type TestDatabase } from "@parley/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_AGENT_ID } from "./agent/create-default-agent.js";
import { withClient } from "./faults/fault-checks.js";
import { type ApiProcess, startApiProcess } from "./testing/index.js";

/** More than the 1,000 the sweep once read at most (issue 21): the newest 500 were starved. */
const SESSIONS = 1_500;

const SEED_PREFIX = "session_seed_";

/**
 * A liveness pass takes over at most 200 queued Turns; with the loop slowed to a minute, only the
 * startup pass runs in the test's time, so the other 1,300 seeded sessions can only be found by that
 * pass's command half, which must read every page (no cap).
 */
const RECOVERY_SLOWED = { PARLEY_RECOVER_INTERVAL_MS: "60000" };

/**
 * A bound for a hang, not a goal: 15-40 s on a shared 2-core machine (1,500 leases and commits);
 * the poll ends as soon as all are done.
 */
const DRIVEN_DEADLINE_MS = 180_000;

/**
 * No cap starves a queued command (DESIGN §10.7). Each of 1,500 sessions holds what an instance
 * committed and then died before driving: a prompt (its command, its `queued` Turn row, the
 * session's active Turn id, as `enqueueCommand` writes them) and then a `stop`. Driving that
 * needs no model request (the stop cancels the prompt's Turn: a start/finish pair, both commands
 * settled in one commit), so 1,500 of them are cheap; a fresh API process must drive every one.
 */
describe("1,500 sessions with queued commands nobody drove", () => {
  let database: TestDatabase;
  let api: ApiProcess | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterAll(async () => {
    await api?.stop();
    await database?.drop();
  });

  it("a fresh instance drives all 1,500 (not 1,000): every command settled, every Turn finished, once", async () => {
    const { url } = database;
    await seedQueuedPromptAndStop(url, SESSIONS);
    expect(await drivenCounts(url)).toEqual({ queued_commands: 2 * SESSIONS, finished_turns: 0 });

    api = await startApiProcess({ database_url: url, env: RECOVERY_SLOWED });
    const deadline = Date.now() + DRIVEN_DEADLINE_MS;
    let counts = await drivenCounts(url);
    while (counts.finished_turns < SESSIONS && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      counts = await drivenCounts(url);
    }
    expect(counts).toEqual({ queued_commands: 0, finished_turns: SESSIONS });

    const settled = await withClient(url, async (db) => {
      const commands = await db.query<{ kind: string; status: string; result: unknown; sessions: number }>(
        `SELECT kind, status, result, count(DISTINCT session_id)::int AS sessions FROM session_commands
          WHERE session_id LIKE $1 GROUP BY kind, status, result ORDER BY kind`,
        [`${SEED_PREFIX}%`],
      );
      const turns = await db.query<{ type: string; status: string; events: number; sessions: number }>(
        `SELECT e.mutation->>'type' AS type, e.mutation->>'status' AS status, count(*)::int AS events,
                count(DISTINCT e.session_id)::int AS sessions
           FROM ${LOG_ENTRIES} WHERE s.session_id LIKE $1 AND e.mutation->>'variant' = 'turn'
          GROUP BY 1, 2 ORDER BY 1`,
        [`${SEED_PREFIX}%`],
      );
      const active = await db.query<{ active: number }>(
        `SELECT count(*)::int AS active FROM sessions WHERE session_id LIKE $1 AND active_turn_id IS NOT NULL`,
        [`${SEED_PREFIX}%`],
      );
      return { commands: commands.rows, turns: turns.rows, active: active.rows[0]?.active };
    });
    expect(settled).toEqual({
      commands: [
        { kind: "prompt", status: "cancelled", result: null, sessions: SESSIONS },
        {
          kind: "stop",
          status: "applied",
          result: { stopped: false, cancelled_queued_prompts: 1, reason: "idle" },
          sessions: SESSIONS,
        },
      ],
      turns: [
        { type: "finish", status: "failed", events: SESSIONS, sessions: SESSIONS },
        { type: "start", status: "running", events: SESSIONS, sessions: SESSIONS },
      ],
      active: 0,
    });
    // Nothing failed on the way (pino's error level is 50).
    expect(api.output()).not.toContain('"level":50');
    expect(api.output()).not.toContain("queued commands failed");
  }, 240_000);
});

/**
 * In five statements: a member, then `count` sessions owned by it, each with a prompt committed
 * as `enqueueCommand` commits one for an idle session (the command, its `queued` Turn row, the
 * session's active Turn id) and a `stop` after it, stamped 10 s ago by an instance that is gone.
 */
async function seedQueuedPromptAndStop(database_url: string, count: number): Promise<void> {
  const committed_at = Date.now() - 10_000;
  const seeded = `${SEED_PREFIX}%`;
  await withClient(database_url, async (db) => {
    await db.query(
      `INSERT INTO users (user_id, name, role, created_at) VALUES ('user_seed', 'seed', 'member', $1)`,
      [committed_at],
    );
    await db.query(
      `INSERT INTO sessions (session_id, owner_id, agent_id, title, created_at, updated_at,
                             approval_mode, effective_approval_mode, active_turn_id)
       SELECT $2::text || lpad(n::text, 4, '0'), 'user_seed', $4::text, 'hello', $3::bigint, $3::bigint,
              'ask', 'ask', 'turn:' || $2::text || lpad(n::text, 4, '0') || ':' || $3::text || ':seed'
         FROM generate_series(1, $1::int) AS n`,
      [count, SEED_PREFIX, committed_at, DEFAULT_AGENT_ID],
    );
    await db.query(
      `INSERT INTO session_commands (session_id, command_id, kind, input, turn_id, status, created_at)
       SELECT session_id, 'command:seed-prompt', 'prompt', '{"query":"hello"}'::jsonb, active_turn_id,
              'queued', $2
         FROM sessions WHERE session_id LIKE $1`,
      [seeded, committed_at],
    );
    await db.query(
      `INSERT INTO session_commands (session_id, command_id, kind, input, status, created_at)
       SELECT session_id, 'command:seed-stop', 'stop', '{"reason":"turn_stopped"}'::jsonb, 'queued', $2
         FROM sessions WHERE session_id LIKE $1`,
      [seeded, committed_at],
    );
    await db.query(
      `INSERT INTO turns (session_id, turn_id, state, holder, epoch, updated_at)
       SELECT session_id, active_turn_id, 'queued', NULL, 0, $2 FROM sessions WHERE session_id LIKE $1`,
      [seeded, committed_at],
    );
  });
}

/** One round trip: the seeded commands still queued, and their Turns finished. */
function drivenCounts(database_url: string) {
  return withClient(database_url, async (db) => {
    const { rows } = await db.query<{ queued_commands: number; finished_turns: number }>(
      `SELECT
         (SELECT count(*)::int FROM session_commands WHERE session_id LIKE $1 AND status = 'queued')
           AS queued_commands,
         (SELECT count(*)::int FROM turns WHERE session_id LIKE $1 AND state = 'finished') AS finished_turns`,
      [`${SEED_PREFIX}%`],
    );
    const [counts] = rows;
    if (!counts) throw new Error("no counts");
    return counts;
  });
}
