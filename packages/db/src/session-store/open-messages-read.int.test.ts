import { buildAssistantMessage, buildTextPart, messageMutationOf } from "@parley/session-core/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.js";
import { PrismaSessionStore } from "./prisma-session-store.js";

/** Sessions with an open (streaming) assistant message besides the one read. */
const OTHER_OPEN_SESSIONS = 2_000;

let database: TestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  // One connection, planning every named statement generically, as Postgres does for a statement
  // after its first executions: the plan cannot depend on the values.
  pool = new pg.Pool({
    connectionString: database.url,
    max: 1,
    options: "-c plan_cache_mode=force_generic_plan",
  });
  await pool.query(
    `INSERT INTO sessions (session_id, owner_id, agent_id, title, created_at, updated_at, approval_mode,
                           effective_approval_mode, last_event_id)
     SELECT 'session:' || n, 'user:1', 'agent:1', '', 1, 1, 'ask', 'ask', 0
       FROM generate_series(0, $1::int) AS n`,
    [OTHER_OPEN_SESSIONS],
  );
  const store = new PrismaSessionStore(pool);
  const message = buildAssistantMessage({
    session_id: "session:0",
    message_id: "message:open",
    sequence: 1,
    status: "streaming",
    parts: [buildTextPart({ sequence: 1, text: "Working on it", state: "done" })],
  });
  await store.commit({
    session_id: "session:0",
    message: { snapshot: message, expected_revision: 0 },
    mutation: messageMutationOf(message),
  });
  // Every other session has an open assistant message too (waiting Turns): copies of that row.
  await pool.query(
    `INSERT INTO messages (session_id, message_id, sequence, revision, type, status, turn_id, created_at,
                           updated_at, snapshot)
     SELECT s.session_id, m.message_id, m.sequence, m.revision, m.type, m.status, m.turn_id, m.created_at,
            m.updated_at, m.snapshot
       FROM messages m, sessions s WHERE m.session_id = 'session:0' AND s.session_id <> 'session:0'`,
  );
  await pool.query("ANALYZE messages");
});
afterAll(async () => {
  await pool.end();
  await database.drop();
});

describe("one session's open assistant messages (parking, an answer's recheck)", () => {
  it("are read through the session's key, whatever plan the named statement has", async () => {
    const store = new PrismaSessionStore(pool);
    const open = await store.listOpenAssistantMessages("session:0");
    expect(open.map((message) => [message.session_id, message.message_id])).toEqual([
      ["session:0", "message:open"],
    ]);
    expect(await store.listOpenAssistantMessages()).toHaveLength(OTHER_OPEN_SESSIONS + 1);

    // The statement that read one session, as the connection prepared it, run again with its plan:
    // it visits that session's row only, not every open message of every session.
    const prepared = await pool.query<{ name: string; parameters: number }>(
      `SELECT name, cardinality(parameter_types) AS parameters FROM pg_prepared_statements
        WHERE statement LIKE '%status = ''streaming''%' AND statement LIKE '%m.session_id = $%'`,
    );
    expect(prepared.rows).toHaveLength(1);
    const { name = "", parameters = 0 } = prepared.rows[0] ?? {};
    const values = Array.from({ length: parameters }, () => "'session:0'").join(", ");
    const explained = await pool.query<{ "QUERY PLAN": string }>(
      `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE ${pg.escapeIdentifier(name)}(${values})`,
    );
    const plan = explained.rows.map((row) => row["QUERY PLAN"]).join("\n");
    expect(plan).toMatch(/Index Cond: \(session_id = \$1\)/);
    expect(plan).not.toMatch(/Rows Removed by Filter/);
  });
});
