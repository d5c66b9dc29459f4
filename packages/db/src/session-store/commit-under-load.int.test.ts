import { buildSessionRecord, buildUserMessage, messageCommitOf } from "@parley/session-core/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitForLockWaiter } from "../testing/lock-waiter.js";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.js";
import { PrismaSessionStore } from "./prisma-session-store.js";

let database: TestDatabase;
const opened: pg.Pool[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  for (const pool of opened) await pool.end();
  await database.drop();
});

function smallPool(max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: database.url, max });
  opened.push(pool);
  return pool;
}

describe("PrismaSessionStore under a burst", () => {
  it("commits 300 simultaneous revisions of different sessions on a pool of 2: every one succeeds", async () => {
    const pool = smallPool(2);
    const store = new PrismaSessionStore(pool);
    const sessions = Array.from({ length: 300 }, (_, index) => `session:burst-${index}`);
    for (const session_id of sessions) await store.createSession(buildSessionRecord({ session_id }));

    const results = await Promise.allSettled(
      sessions.map((session_id) =>
        store.commit(messageCommitOf(buildUserMessage({ session_id, message_id: "message:1", sequence: 1 }))),
      ),
    );

    const failures = results.filter((result) => result.status === "rejected");
    expect(failures).toEqual([]);
    const { rows } = await pool.query<{ sessions: string; events: string }>(
      `SELECT COUNT(DISTINCT session_id)::text AS sessions, COUNT(*)::text AS events
         FROM session_events WHERE session_id LIKE 'session:burst-%'`,
    );
    expect(rows[0]).toEqual({ sessions: "300", events: "300" });
  });

  it("a commit waits for a pool connection held elsewhere, then is written once", async () => {
    const pool = smallPool(1);
    const store = new PrismaSessionStore(pool);
    const session_id = "session:starved";
    await store.createSession(buildSessionRecord({ session_id }));

    // Hold the only connection until the commit is queued behind it, then give it back.
    const holder = await pool.connect();
    const committed = store.commit(
      messageCommitOf(buildUserMessage({ session_id, message_id: "message:1", sequence: 1 })),
    );
    while (pool.waitingCount === 0) await new Promise((resolve) => setImmediate(resolve));
    holder.release();

    await committed;
    const { rows } = await pool.query<{ event_id: string }>(
      "SELECT event_id::text FROM session_events WHERE session_id = $1 ORDER BY event_id",
      [session_id],
    );
    expect(rows.map((row) => row.event_id)).toEqual(["1"]);
  });
});

describe("enqueueCommand against a concurrent call", () => {
  it("a prompt whose request_id another call committed while it waited for the session's row returns that command and writes nothing", async () => {
    const pool = smallPool(2);
    const store = new PrismaSessionStore(pool);
    const session_id = "session:request-race";
    await store.createSession(buildSessionRecord({ session_id }));
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      // The other call: it holds the session's row, and commits the same request_id while ours waits.
      await holder.query("BEGIN");
      await holder.query("SELECT 1 FROM sessions WHERE session_id = $1 FOR UPDATE", [session_id]);
      const racing = store.enqueueCommand({
        session_id,
        command_id: "command:second",
        command: { kind: "prompt", input: { query: "hello" }, request_id: "request:1" },
        created_at: 2,
        new_turn_id: "turn:second",
      });
      await waitForLockWaiter(pool, "session_commands");
      await holder.query(
        `INSERT INTO session_commands (session_id, command_id, kind, input, request_id, turn_id, status, result, created_at)
         VALUES ($1, 'command:first', 'prompt', '{"query": "hello"}', 'request:1', 'turn:first', 'queued', NULL, 1)`,
        [session_id],
      );
      await holder.query("UPDATE sessions SET active_turn_id = 'turn:first' WHERE session_id = $1", [
        session_id,
      ]);
      await holder.query("COMMIT");

      const result = await racing;

      expect(result).toMatchObject({ created: false, auto_titled: false });
      expect(result.command).toMatchObject({ command_id: "command:first", turn_id: "turn:first" });
      const { rows } = await pool.query<{ command_id: string }>(
        "SELECT command_id FROM session_commands WHERE session_id = $1",
        [session_id],
      );
      expect(rows).toEqual([{ command_id: "command:first" }]);
      const active = await pool.query("SELECT active_turn_id FROM sessions WHERE session_id = $1", [
        session_id,
      ]);
      expect(active.rows).toEqual([{ active_turn_id: "turn:first" }]);
    } finally {
      await holder.end();
    }
  });
});
