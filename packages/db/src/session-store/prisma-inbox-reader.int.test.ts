import { buildInteraction, buildSessionRecord, T0 } from "@parley/session-core/testing";
import type { PrismaClient } from "@prisma/client";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PrismaAuthStore } from "../auth/prisma-auth-store.js";
import { createPrismaClient } from "../prisma-client.js";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.js";
import { PrismaInboxReader } from "./prisma-inbox-reader.js";
import { PrismaSessionStore } from "./prisma-session-store.js";

let database: TestDatabase;
let pool: pg.Pool;
let prisma: PrismaClient;
let store: PrismaSessionStore;
let reader: PrismaInboxReader;
let owners: { alice: string; bob: string };

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  prisma = createPrismaClient(pool);
  store = new PrismaSessionStore(pool);
  reader = new PrismaInboxReader(pool);
  const auth = new PrismaAuthStore(prisma, { lookup_pool: pool });
  const alice = await auth.createUser({ name: "alice", role: "member" });
  const bob = await auth.createUser({ name: "bob", role: "member" });
  owners = { alice: alice.user_id, bob: bob.user_id };
  const sessions = [
    { session_id: "session:a", owner_id: owners.alice, title: "Alice's session" },
    { session_id: "session:b", owner_id: owners.bob, title: "Bob's session" },
    { session_id: "session:orphan", owner_id: "user:deleted", title: "No owner row" },
  ];
  for (const session of sessions) await store.createSession(buildSessionRecord(session));
  // Seven interactions over three sessions: four pending, three answered, at distinct times.
  const seeds = [
    { session_id: "session:a", n: 1, status: "pending" as const },
    { session_id: "session:b", n: 2, status: "resolved" as const },
    { session_id: "session:a", n: 3, status: "pending" as const },
    { session_id: "session:orphan", n: 4, status: "pending" as const },
    { session_id: "session:b", n: 5, status: "denied" as const },
    { session_id: "session:b", n: 6, status: "pending" as const },
    { session_id: "session:a", n: 7, status: "resolved" as const },
  ];
  for (const seed of seeds) {
    const interaction = buildInteraction({
      interaction_id: `interaction:${seed.n}`,
      tool_call_id: `call_${seed.n}`,
      status: seed.status,
      created_at: T0 + seed.n,
      ...(seed.status === "pending" ? {} : { resolved_at: T0 + 100 + seed.n }),
    });
    await store.commit({
      session_id: seed.session_id,
      interactions: [
        {
          session_id: seed.session_id,
          message_id: `message:${seed.n}`,
          tool_call_id: `call_${seed.n}`,
          tool_name: "delete_file",
          ordinal: 0,
          interaction,
        },
      ],
    });
  }
});
afterAll(async () => {
  await prisma.$disconnect();
  await pool.end();
  await database.drop();
});

describe("PrismaInboxReader", () => {
  it("returns the store's inbox order with each row's session title and owner name", async () => {
    const page = await reader.page({ limit: 10 });
    const expected = await store.queryInteractions({ limit: 10 });
    expect(page.items.map((item) => item.record)).toStrictEqual(expected.items);
    expect(
      page.items.map((item) => [item.record.interaction.interaction_id, item.session_title, item.owner_name]),
    ).toEqual([
      ["interaction:1", "Alice's session", "alice"],
      ["interaction:3", "Alice's session", "alice"],
      ["interaction:4", "No owner row", null],
      ["interaction:6", "Bob's session", "bob"],
      ["interaction:7", "Alice's session", "alice"],
      ["interaction:5", "Bob's session", "bob"],
      ["interaction:2", "Bob's session", "bob"],
    ]);
    expect(page.items[0]?.owner_id).toBe(owners.alice);
    expect(page.next_cursor).toBeNull();
  });

  it("pages with the store's cursors, across the pending/answered boundary, with filters", async () => {
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await reader.page({ limit: 3, ...(cursor ? { cursor } : {}) });
      const expected = await store.queryInteractions({ limit: 3, ...(cursor ? { cursor } : {}) });
      expect(page.next_cursor).toBe(expected.next_cursor);
      ids.push(...page.items.map((item) => item.record.interaction.interaction_id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(ids).toEqual([
      "interaction:1",
      "interaction:3",
      "interaction:4",
      "interaction:6",
      "interaction:7",
      "interaction:5",
      "interaction:2",
    ]);
    const bobs = await reader.page({ limit: 10, session_id: "session:b", status: "pending" });
    expect(bobs.items.map((item) => [item.record.interaction.interaction_id, item.owner_name])).toEqual([
      ["interaction:6", "bob"],
    ]);
  });
});
