import {
  buildAssistantMessage,
  buildTextPart,
  buildUserMessage,
  messageMutationOf,
} from "@parley/session-core/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { genericPlanningPool, insertSessions, numberedSessionIds } from "../test-support/generic-planning.js";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.js";
import { PrismaSessionStore } from "./prisma-session-store.js";

/*
 * The store's statements are named, so after a few executions Postgres may run one generic plan for
 * all values. A filter like `($1 IS NULL OR column = $1)` then cannot use the value: these cases
 * prepare each read on a connection that plans generically, beside many rows it must not visit,
 * and check the plan it runs.
 */

/** Sessions with an open (streaming) assistant message besides the one read. */
const OTHER_OPEN_SESSIONS = 2_000;
/** Messages of the session whose older pages (and an Interaction with its message) are read. */
const LONG_SESSION_MESSAGES = 600;

let database: TestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = genericPlanningPool(database.url);
  await insertSessions(pool, numberedSessionIds(OTHER_OPEN_SESSIONS));
  const store = new PrismaSessionStore(pool);
  const user = buildUserMessage({ session_id: "session:long", message_id: "message:1", sequence: 1 });
  await insertSessions(pool, ["session:long"]);
  await store.commit({
    session_id: "session:long",
    message: { snapshot: user, expected_revision: 0 },
    mutation: messageMutationOf(user),
  });
  const open = buildAssistantMessage({
    session_id: "session:0",
    message_id: "message:open",
    sequence: 1,
    status: "streaming",
    parts: [buildTextPart({ sequence: 1, text: "Working on it", state: "done" })],
  });
  await store.commit({
    session_id: "session:0",
    message: { snapshot: open, expected_revision: 0 },
    mutation: messageMutationOf(open),
  });
  // Copies of those rows: an open assistant message in every other session (waiting Turns), and a
  // long history in one session.
  await pool.query(
    `INSERT INTO messages (session_id, message_id, sequence, revision, type, status, turn_id, created_at,
                           updated_at, snapshot)
     SELECT s.session_id, m.message_id, m.sequence, m.revision, m.type, m.status, m.turn_id, m.created_at,
            m.updated_at, m.snapshot
       FROM messages m, sessions s
      WHERE m.session_id = 'session:0' AND s.session_id NOT IN ('session:0', 'session:long')`,
  );
  await pool.query(
    `INSERT INTO messages (session_id, message_id, sequence, revision, type, status, turn_id, created_at,
                           updated_at, snapshot)
     SELECT m.session_id, 'message:' || n, n, m.revision, m.type, m.status, m.turn_id, m.created_at,
            m.updated_at, m.snapshot
       FROM messages m, generate_series(2, $1::int) AS n WHERE m.session_id = 'session:long'`,
    [LONG_SESSION_MESSAGES],
  );
  // An Interaction on one of the long session's messages (the one an answer reads with its message).
  await pool.query(
    `INSERT INTO interactions (session_id, interaction_id, message_id, message_sequence, part_sequence,
                               tool_call_id, tool_name, ordinal, type, status, turn_id, request, created_at,
                               inbox_at)
     VALUES ('session:long', 'interaction:long', 'message:300', 300, 1, 'call:1', 'write_file', 0,
             'approval', 'pending', 'turn:1', '{}', 1, 1)`,
  );
  await pool.query("ANALYZE");
});
afterAll(async () => {
  await pool.end();
  await database.drop();
});

/**
 * The plan the pool's connection runs for the one statement it prepared whose text contains each
 * of `fragments`, executed with `values` (SQL literals).
 */
async function preparedPlan(fragments: string[], values: string[]): Promise<string> {
  const prepared = await pool.query<{ name: string; statement: string; parameters: number }>(
    "SELECT name, statement, cardinality(parameter_types) AS parameters FROM pg_prepared_statements",
  );
  const matching = prepared.rows.filter((row) =>
    fragments.every((fragment) => row.statement.includes(fragment)),
  );
  expect(matching).toHaveLength(1);
  const { name = "", statement, parameters } = matching[0] ?? {};
  // A statement of another shape (e.g. one value passed twice for an `IS NULL OR` filter) fails here.
  expect(parameters, `parameters of ${statement}`).toBe(values.length);
  const explained = await pool.query<{ "QUERY PLAN": string }>(
    `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE ${pg.escapeIdentifier(name)}(${values.join(", ")})`,
  );
  return explained.rows.map((row) => row["QUERY PLAN"]).join("\n");
}

describe("reads of one session under a generic plan", () => {
  it("one session's open assistant messages (parking, an answer's recheck) through its key", async () => {
    const store = new PrismaSessionStore(pool);
    const open = await store.listOpenAssistantMessages("session:0");
    expect(open.map((message) => [message.session_id, message.message_id])).toEqual([
      ["session:0", "message:open"],
    ]);
    expect(await store.listOpenAssistantMessages()).toHaveLength(OTHER_OPEN_SESSIONS + 1);

    const plan = await preparedPlan(["status = 'streaming'", "m.session_id = $"], ["'session:0'"]);
    expect(plan).toMatch(/Index Cond: \(session_id = \$1\)/);
    expect(plan).not.toMatch(/Rows Removed by Filter/);
  });

  it("an older page of messages from its first row, not walking down from the newest", async () => {
    const store = new PrismaSessionStore(pool);
    const page = await store.listMessages("session:long", { before_sequence: 10, limit: 5 });
    expect(page.items.map((message) => message.sequence)).toEqual([5, 6, 7, 8, 9]);
    expect(page).toMatchObject({ has_more: true, next_before_sequence: 5 });
    const newest = await store.listMessages("session:long", { limit: 2 });
    expect(newest.items.map((message) => message.sequence)).toEqual([
      LONG_SESSION_MESSAGES - 1,
      LONG_SESSION_MESSAGES,
    ]);

    const plan = await preparedPlan(["m.sequence < $"], ["'session:long'", "10", "6"]);
    expect(plan).toMatch(/Index Cond: \(\(session_id = \$1\) AND \(sequence < \$2\)\)/);
    expect(plan).not.toMatch(/Rows Removed by Filter/);
  });

  it("an answer's context: the Interaction's message by its key, not among the session's messages", async () => {
    const store = new PrismaSessionStore(pool);
    const context = await store.getAnswerContext("session:long", "interaction:long");
    expect(context?.session.session_id).toBe("session:long");
    expect(context?.interaction?.record.interaction.interaction_id).toBe("interaction:long");
    expect(context?.interaction?.message).toMatchObject({ message_id: "message:300", sequence: 300 });

    const plan = await preparedPlan(
      ["LEFT JOIN interactions i", "interaction_created_at"],
      ["'interaction:long'", "'session:long'"],
    );
    expect(plan).toMatch(
      /Index Cond: \(\(session_id = i\.session_id\) AND \((sequence = i\.message_sequence|message_id = i\.message_id)\)\)/,
    );
    expect(plan).not.toMatch(/Rows Removed by (Join )?Filter: [1-9]/);
  });
});
