import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../testing/index.js";

/** Tables that are not session data: shared by every session (DESIGN §10.7), and Prisma's own. */
const REFERENCE_TABLES = new Set(["users", "api_tokens", "_prisma_migrations"]);

interface KeyRow {
  table_name: string;
  constraint_name: string;
  constraint_type: "PRIMARY KEY" | "UNIQUE";
  columns: string[];
}

/**
 * Read from the catalog of a migrated database. Ready for Citus (DESIGN §10.7): every primary key
 * and unique constraint (or unique index) of session data includes `session_id`. The indexes by
 * state hold only the rows read through them (decision 0010): Prisma's schema cannot express a
 * partial index and its diff ignores them, so nothing but their migrations keeps them.
 */
describe("keys and indexes of session data", () => {
  let database: TestDatabase;
  let client: pg.Client;

  beforeAll(async () => {
    database = await createTestDatabase();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end();
    await database?.drop();
  });

  it("every primary key and unique index of a session-data table includes session_id", async () => {
    // Unique indexes cover both UNIQUE constraints and `CREATE UNIQUE INDEX` (what Prisma's @@unique makes).
    const { rows } = await client.query<KeyRow>(`
      SELECT t.relname AS table_name, i.relname AS constraint_name,
             CASE WHEN x.indisprimary THEN 'PRIMARY KEY' ELSE 'UNIQUE' END AS constraint_type,
             array_agg(a.attname::text ORDER BY k.position) AS columns
        FROM pg_index x
        JOIN pg_class t ON t.oid = x.indrelid
        JOIN pg_class i ON i.oid = x.indexrelid
        JOIN pg_namespace n ON n.oid = t.relnamespace
        CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, position)
        JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
       WHERE n.nspname = current_schema() AND t.relkind = 'r' AND x.indisunique
       GROUP BY t.relname, i.relname, x.indisprimary
       ORDER BY t.relname, i.relname`);
    const sessionKeys = rows.filter((row) => !REFERENCE_TABLES.has(row.table_name));
    // The check reads real keys: the session-data tables are all there.
    expect(new Set(sessionKeys.map((row) => row.table_name))).toEqual(
      new Set([
        "sessions",
        "messages",
        "message_parts",
        "interactions",
        "session_events",
        "interaction_events",
        "session_commands",
        "turns",
      ]),
    );
    const withoutSession = sessionKeys.filter((row) => !row.columns.includes("session_id"));
    expect(withoutSession).toEqual([]);
  });

  it("the indexes by state are partial: Turns to drive, open assistant messages, queued commands, request ids", async () => {
    const { rows } = await client.query<{ index: string; columns: string; predicate: string }>(`
      SELECT i.relname AS index,
             (SELECT string_agg(a.attname, ', ' ORDER BY k.position)
                FROM unnest(x.indkey) WITH ORDINALITY AS k(attnum, position)
                JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum) AS columns,
             pg_get_expr(x.indpred, x.indrelid) AS predicate
        FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
       WHERE x.indpred IS NOT NULL
       ORDER BY i.relname`);
    expect(rows).toEqual([
      {
        index: "messages_open_assistant_idx",
        columns: "session_id, sequence",
        predicate: "((type = 'assistant'::text) AND (status = 'streaming'::text))",
      },
      {
        index: "session_commands_queued_idx",
        columns: "session_id, position",
        predicate: "(status = 'queued'::text)",
      },
      {
        index: "session_commands_queued_kind_idx",
        columns: "kind, session_id",
        predicate: "(status = 'queued'::text)",
      },
      {
        index: "session_commands_request_idx",
        columns: "session_id, request_id",
        predicate: "(request_id IS NOT NULL)",
      },
      {
        index: "turns_state_updated_at_idx",
        columns: "state, updated_at",
        predicate: "(state = ANY (ARRAY['queued'::text, 'running'::text]))",
      },
    ]);
  });
});
