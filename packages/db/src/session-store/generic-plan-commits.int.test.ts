import { createRequire } from "node:module";
import type { SessionCommit } from "@parley/session-core";
import {
  buildAssistantMessage,
  buildInteraction,
  buildToolPart,
  interactionRecordsOf,
  messageMutationOf,
  partMutationOf,
} from "@parley/session-core/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { genericPlanningPool, insertSessions, numberedSessionIds } from "../test-support/generic-planning.js";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.js";
import { PrismaSessionStore } from "./prisma-session-store.js";

/*
 * A revision is one named statement, so Postgres may run one generic plan for it whatever the
 * values. Its Interaction and part rows come from JSON recordsets the planner guesses at 100 rows:
 * joined on those alone, the generic plan hashed them against a scan of every Interaction, and of
 * every part (measured: a Seq Scan of each table in each answer). These cases commit on a
 * connection that plans generically, beside many rows the commit must not visit, and check the
 * plan of the statement it ran.
 */

/** Pending Interactions of other sessions. */
const OTHER_INTERACTIONS = 3_000;
const SESSION = "session:answer";
const MESSAGE = "message:answer";

/** pg's own conversion of a parameter to its text form (arrays, JSON, numbers). */
const prepareValue = createRequire(import.meta.url)("pg/lib/utils").prepareValue as (
  value: unknown,
) => unknown;

let database: TestDatabase;
let pool: pg.Pool;
/** The statements the store ran, as it sent them (name, text, values). */
const sent: pg.QueryConfig[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  pool = genericPlanningPool(database.url);
  await insertSessions(pool, [...numberedSessionIds(OTHER_INTERACTIONS), SESSION]);
  await pool.query(
    `INSERT INTO interactions (session_id, interaction_id, message_id, message_sequence, part_sequence,
                               tool_call_id, tool_name, ordinal, type, status, turn_id, request, created_at,
                               inbox_at)
     SELECT 'session:' || n, 'interaction:other:' || n, 'message:1', 1, 1, 'call:1', 'delete_file', 0,
            'approval', 'pending', 'turn:1', '{}', 1, 1
       FROM generate_series(0, $1::int) AS n`,
    [OTHER_INTERACTIONS],
  );
  await pool.query("ANALYZE");
});
afterAll(async () => {
  await pool.end();
  await database.drop();
});

/** A store on the generic-planning connection that records every statement it sends. */
function recordingStore(): PrismaSessionStore {
  const recording = new Proxy(pool, {
    get(target, key, receiver) {
      if (key !== "query") return Reflect.get(target, key, receiver);
      return (config: pg.QueryConfig, ...rest: unknown[]) => {
        if (typeof config === "object") sent.push(config);
        return (target.query as (...args: unknown[]) => unknown)(config, ...rest);
      };
    },
  });
  return new PrismaSessionStore(recording);
}

/** The generic plan of the last statement sent whose text contains `fragment` (not executed). */
async function planOfLast(fragment: string): Promise<string> {
  const statement = sent.findLast((config) => config.text.includes(fragment));
  if (statement?.name === undefined) throw new Error(`No named statement containing ${fragment}`);
  const { rows } = await pool.query<{ types: string[] }>(
    "SELECT parameter_types::text[] AS types FROM pg_prepared_statements WHERE name = $1",
    [statement.name],
  );
  const types = rows[0]?.types ?? [];
  const literals = (statement.values ?? []).map((value, index) => {
    const text = prepareValue(value);
    const type = types[index] ?? "unknown";
    return text === null || text === undefined
      ? `NULL::${type}`
      : `${pg.escapeLiteral(String(text))}::${type}`;
  });
  const explained = await pool.query<{ "QUERY PLAN": string }>(
    `EXPLAIN (COSTS OFF) EXECUTE ${pg.escapeIdentifier(statement.name)}(${literals.join(", ")})`,
  );
  return explained.rows.map((row) => row["QUERY PLAN"]).join("\n");
}

describe("commits under a generic plan", () => {
  it("an answer's commit updates its Interaction by key, not by scanning the table", async () => {
    const store = recordingStore();
    const pending = buildInteraction({ interaction_id: "interaction:answer", tool_call_id: "call:1" });
    const waiting = buildToolPart({
      sequence: 1,
      tool_call_id: "call:1",
      state: "waiting-user",
      interactions: [pending],
    });
    const asked = buildAssistantMessage({
      session_id: SESSION,
      message_id: MESSAGE,
      sequence: 1,
      status: "streaming",
      parts: [waiting],
    });
    await store.commit({
      session_id: SESSION,
      message: { snapshot: asked, expected_revision: 0 },
      interactions: interactionRecordsOf(asked),
      mutation: messageMutationOf(asked),
    });
    const resolved = buildInteraction({
      interaction_id: "interaction:answer",
      tool_call_id: "call:1",
      status: "resolved",
    });
    const running = { ...waiting, state: "running" as const, interactions: [resolved] };
    const answered = { ...asked, revision: 2, updated_at: asked.updated_at + 1, parts: [running] };
    const answer: SessionCommit = {
      session_id: SESSION,
      message: { snapshot: answered, expected_revision: 1, changed_part_ids: [running.part_id] },
      interactions: interactionRecordsOf(answered),
      mutation: partMutationOf(answered, running),
    };
    await store.commit(answer);

    const stored = await pool.query("SELECT status FROM interactions WHERE interaction_id = $1", [
      "interaction:answer",
    ]);
    expect(stored.rows).toEqual([{ status: "resolved" }]);
    const plan = await planOfLast("interactions_updated");
    expect(plan).toMatch(
      /Index Scan (using|on) interactions_pkey[^\n]*\n\s+Index Cond: \(+interaction_id = ANY/,
    );
    expect(plan).not.toMatch(/Seq Scan on interactions/);
  });
});

describe("a long session's commits under a generic plan", () => {
  it("a revision's part update reads its own message's parts, not the session's", async () => {
    const session_id = "session:long";
    await insertSessions(pool, [session_id]);
    // 400 earlier messages of the session, three parts each.
    await pool.query(
      `INSERT INTO messages (session_id, message_id, sequence, revision, type, status, turn_id, created_at,
                             updated_at, snapshot)
       SELECT $1, 'message:' || n, n, 1, 'assistant', 'completed', NULL, 1, 1, '{}'
         FROM generate_series(1, 400) AS n`,
      [session_id],
    );
    await pool.query(
      `INSERT INTO message_parts (session_id, message_sequence, part_id, sequence, revision, body)
       SELECT $1, n, 'text:' || k, k, 1, '{"type": "text", "text": "earlier", "state": "done"}'
         FROM generate_series(1, 400) AS n, generate_series(1, 3) AS k`,
      [session_id],
    );
    await pool.query("ANALYZE");
    const store = recordingStore();
    const tool = buildToolPart({ sequence: 1, tool_call_id: "call:long", state: "running" });
    const open = buildAssistantMessage({
      session_id,
      message_id: "message:latest",
      sequence: 401,
      status: "streaming",
      parts: [tool],
    });
    await store.commit({
      session_id,
      message: { snapshot: open, expected_revision: 0 },
      mutation: messageMutationOf(open),
    });
    const done = { ...tool, state: "completed" as const, output: { ok: true } };
    const next = { ...open, revision: 2, updated_at: open.updated_at + 1, parts: [done] };
    await store.commit({
      session_id,
      message: { snapshot: next, expected_revision: 1, changed_part_ids: [done.part_id] },
      mutation: partMutationOf(next, done),
    });

    const stored = await pool.query(
      "SELECT body->>'state' AS state FROM message_parts WHERE session_id = $1 AND message_sequence = 401",
      [session_id],
    );
    expect(stored.rows).toEqual([{ state: "completed" }]);
    const plan = await planOfLast("parts_updated");
    const update = plan.slice(plan.indexOf("Update on message_parts p"));
    expect(update).toMatch(/Index Cond: \(\(session_id = \$\d+\) AND \(message_sequence = \$\d+\)/);
  });
});
