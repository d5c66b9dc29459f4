import type { InteractionEvent } from "@parley/session-core";
import {
  buildInteraction,
  buildSessionRecord,
  buildUserMessage,
  messageCommitOf,
} from "@parley/session-core/testing";
import type { PrismaClient } from "@prisma/client";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createPrismaClient } from "../prisma-client.js";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.js";
import { FEED_LOCK_KEY } from "./commit-revision.js";
import { PrismaSessionStore } from "./prisma-session-store.js";

// The admin feed without a global exclusive lock: writers hold the feed lock SHARED, so a writer
// that drew a lower id can commit after one that drew a higher id. These cases hold such a writer
// open by hand and check that a reader never skips its id.

let database: TestDatabase;
let pool: pg.Pool;
let prisma: PrismaClient;
let store: PrismaSessionStore;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 6 });
  prisma = createPrismaClient(pool);
  store = new PrismaSessionStore(pool);
});
afterAll(async () => {
  await prisma.$disconnect();
  await pool.end();
  await database.drop();
});
beforeEach(async () => {
  await pool.query(
    "TRUNCATE sessions, messages, message_parts, interactions, session_events, interaction_events, session_commands, turns RESTART IDENTITY",
  );
  for (const session_id of ["session:slow", "session:fast"]) {
    await store.createSession(buildSessionRecord({ session_id }));
  }
});

/** A writer that took its feed id under the shared lock and has not committed yet. */
async function openSlowWriter(): Promise<{ client: pg.PoolClient; event_id: number }> {
  const client = await pool.connect();
  await client.query("BEGIN");
  await client.query("SELECT pg_advisory_xact_lock_shared($1::bigint)", [FEED_LOCK_KEY.toString()]);
  const interaction = buildInteraction({ interaction_id: "interaction:slow", tool_call_id: "call_slow" });
  const { rows } = await client.query<{ event_id: string }>(
    `INSERT INTO interaction_events (session_id, interaction_id, kind, interaction, created_at)
     VALUES ('session:slow', 'interaction:slow', 'created', $1::jsonb, 0) RETURNING event_id::text`,
    [JSON.stringify(interaction)],
  );
  return { client, event_id: Number(rows[0]?.event_id) };
}

async function commitFast(): Promise<InteractionEvent> {
  const interaction = buildInteraction({ interaction_id: "interaction:fast", tool_call_id: "call_fast" });
  const result = await store.commit(
    messageCommitOf(buildUserMessage({ session_id: "session:fast", message_id: "message:1", sequence: 1 }), {
      interaction_events: [{ kind: "created", session_id: "session:fast", interaction }],
    }),
  );
  const [event] = result.interaction_events;
  if (!event) throw new Error("the commit carried one interaction event");
  return event;
}

/** Resolves once some session waits for an advisory lock (the reader settling the feed). */
async function untilAdvisoryWaiter(): Promise<void> {
  while (true) {
    const { rows } = await pool.query<{ waiting: number }>(
      // This database's only: other suites run beside this one on the same server.
      `SELECT COUNT(*)::int AS waiting FROM pg_locks
        WHERE locktype = 'advisory' AND NOT granted
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    if ((rows[0]?.waiting ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("admin feed order without a global exclusive lock", () => {
  it("a commit on another session is not blocked by a feed writer in flight, and takes a higher id", async () => {
    const slow = await openSlowWriter();
    try {
      const fast = await commitFast();
      expect(fast.event_id).toBe(slow.event_id + 1);
    } finally {
      await slow.client.query("ROLLBACK");
      slow.client.release();
    }
  });

  it("a reader waits for the writer in flight and returns its lower id before the later one", async () => {
    const slow = await openSlowWriter();
    const fast = await commitFast();
    const reading = store.listInteractionEvents(0, 10);
    await untilAdvisoryWaiter();
    await slow.client.query("COMMIT");
    slow.client.release();
    expect((await reading).map((event) => [event.event_id, event.interaction.interaction_id])).toEqual([
      [slow.event_id, "interaction:slow"],
      [fast.event_id, "interaction:fast"],
    ]);
  });

  it("a writer that rolls back leaves a hole in the ids that readers step over", async () => {
    const slow = await openSlowWriter();
    const fast = await commitFast();
    const reading = store.listInteractionEvents(0, 10);
    await untilAdvisoryWaiter();
    await slow.client.query("ROLLBACK");
    slow.client.release();
    expect((await reading).map((event) => event.event_id)).toEqual([fast.event_id]);
    expect(await store.listInteractionEvents(fast.event_id, 10)).toEqual([]);
  });
});
