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
import { createTestDatabase, type TestDatabase } from "../testing/test-database.js";
import { PrismaSessionStore } from "./prisma-session-store.js";

/*
 * A revision is one named statement, so Postgres may run one generic plan for it whatever the
 * values, planned when the tables were small. Its Interaction rows come from a JSON recordset the
 * planner guesses at 100 rows: joined on the key alone, the generic plan hashed them against a scan
 * of every Interaction (measured: a Seq Scan of `interactions` in each answer). These cases commit
 * on a connection that plans generically, beside many Interactions the commit must not visit, and
 * check the plan of the statement it ran.
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
  pool = new pg.Pool({
    connectionString: database.url,
    max: 1,
    options: "-c plan_cache_mode=force_generic_plan",
  });
  await pool.query(
    `INSERT INTO sessions (session_id, owner_id, agent_id, title, created_at, updated_at, approval_mode,
                           effective_approval_mode, last_event_id)
     SELECT 'session:' || n, 'user:1', 'agent:1', '', 1, 1, 'ask', 'ask', 0
       FROM generate_series(0, $1::int) AS n
     UNION ALL SELECT $2, 'user:1', 'agent:1', '', 1, 1, 'ask', 'ask', 0`,
    [OTHER_INTERACTIONS, SESSION],
  );
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
