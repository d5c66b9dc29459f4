import { buildSessionRecord, buildUserMessage, messageCommitOf } from "@parley/session-core/testing";
import type { PrismaClient } from "@prisma/client";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient } from "../prisma-client.js";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.js";
import { PrismaSessionStore } from "./prisma-session-store.js";

let database: TestDatabase;
const opened: { pool: pg.Pool; prisma: PrismaClient }[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  for (const { pool, prisma } of opened) {
    await prisma.$disconnect();
    await pool.end();
  }
  await database.drop();
});

function smallPool(max: number): { pool: pg.Pool; prisma: PrismaClient } {
  const pool = new pg.Pool({ connectionString: database.url, max });
  const prisma = createPrismaClient(pool);
  opened.push({ pool, prisma });
  return { pool, prisma };
}

describe("PrismaSessionStore under a burst", () => {
  it("commits 300 simultaneous revisions of different sessions on a pool of 2: every one succeeds", async () => {
    const { pool, prisma } = smallPool(2);
    const store = new PrismaSessionStore(prisma, pool);
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
    const { pool, prisma } = smallPool(1);
    const store = new PrismaSessionStore(prisma, pool);
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
