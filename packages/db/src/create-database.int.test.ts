import type { SessionEvent } from "@parley/session-core";
import { buildSessionRecord, buildUserMessage, messageCommitOf } from "@parley/session-core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase, type ParleyDatabase } from "./create-database.js";
import { createTestDatabase, type TestDatabase } from "./testing/test-database.js";

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.drop();
});

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Sessions with one committed (and published) user message each. */
async function activity(db: ParleyDatabase, prefix: string, count: number): Promise<string[]> {
  const sessions = Array.from({ length: count }, (_, index) => `session:${prefix}-${index}`);
  for (const session_id of sessions) await db.store.createSession(buildSessionRecord({ session_id }));
  await Promise.all(
    sessions.map(async (session_id) => {
      const lease = await db.leases.acquire(session_id);
      if (!lease) throw new Error(`no lease for ${session_id}`);
      const result = await db.store.commit({
        ...messageCommitOf(buildUserMessage({ session_id, message_id: "message:1", sequence: 1 })),
        epoch: lease.epoch,
      });
      await db.bus.publish({
        session_events: result.event ? [result.event] : [],
        interaction_events: result.interaction_events,
      });
      await lease.release();
    }),
  );
  return sessions;
}

describe("createDatabase().close()", () => {
  it("returns after commits, leases, publishes and a subscriber that heard another process", async () => {
    const a = await createDatabase({ url: database.url, migrate: false, pool_size: 3, holder_id: "A" });
    const b = await createDatabase({ url: database.url, migrate: false, pool_size: 3, holder_id: "B" });
    const heard: SessionEvent[] = [];
    b.bus.subscribe({ onSessionEvent: (event) => heard.push(event) });

    const sessions = await activity(a, "busy", 30);
    await until(() => heard.length === sessions.length);
    // A lease still held at close goes with its connection.
    const held = await b.leases.acquire(sessions[0] ?? "");
    expect(held?.epoch).toBe(2);

    await a.close();
    await b.close();
    expect(a.pool.totalCount).toBe(0);
    expect(b.pool.totalCount).toBe(0);
  });

  it("returns while the LISTEN and lease connections are reconnecting, and a second close is a no-op", async () => {
    const a = await createDatabase({ url: database.url, migrate: false, pool_size: 2, holder_id: "A" });
    const [session_id] = await activity(a, "lost", 1);
    const held = await a.leases.acquire(session_id ?? "");
    expect(held?.epoch).toBe(2);
    await a.bus.simulateConnectionLoss();
    a.leases.simulateConnectionLoss();

    await a.close();
    await a.close();
    expect(a.pool.totalCount).toBe(0);
  });

  it("returns when a transaction's connection died under it (Prisma then never gives that client back)", async () => {
    const a = await createDatabase({ url: database.url, migrate: false, pool_size: 2, holder_id: "A" });
    const failed = a.prisma.$transaction(async (tx) => {
      const [backend] = await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
      await a.pool.query("SELECT pg_terminate_backend($1)", [backend?.pid]);
      await tx.$queryRaw`SELECT 1`;
    });
    await expect(failed).rejects.toThrow();

    await a.close();
    expect(a.pool.totalCount).toBe(0);
  });

  it("returns when a live connection is checked out and never given back (after the grace period)", async () => {
    const a = await createDatabase({ url: database.url, migrate: false, pool_size: 2, holder_id: "A" });
    const forgotten = await a.pool.connect();
    expect((await forgotten.query<{ one: number }>("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);

    await a.close();
    expect(a.pool.totalCount).toBe(0);
  });
});
