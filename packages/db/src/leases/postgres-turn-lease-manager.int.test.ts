import { StoreConflictError } from "@parley/session-core";
import { buildSessionRecord, buildUserMessage, messageCommitOf } from "@parley/session-core/testing";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient } from "../prisma-client.js";
import { PrismaSessionStore } from "../session-store/prisma-session-store.js";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.js";
import { PostgresTurnLeaseManager } from "./postgres-turn-lease-manager.js";

let database: TestDatabase;
let pool: pg.Pool;
let store: PrismaSessionStore;
const managers: PostgresTurnLeaseManager[] = [];
let sessionCounter = 0;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  store = new PrismaSessionStore(createPrismaClient(pool), pool);
});
afterEach(async () => {
  for (const manager of managers.splice(0)) await manager.close();
});
afterAll(async () => {
  await pool.end();
  await database.drop();
});

function manager(holder_id: string): PostgresTurnLeaseManager {
  const created = new PostgresTurnLeaseManager({ url: database.url, holder_id, heartbeat_ms: 100 });
  managers.push(created);
  return created;
}

async function newSession(): Promise<string> {
  sessionCounter += 1;
  const session_id = `session:lease-${sessionCounter}`;
  await store.createSession(buildSessionRecord({ session_id }));
  return session_id;
}

function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    signal.addEventListener("abort", () => resolve(signal.reason), { once: true });
  });
}

describe("PostgresTurnLeaseManager", () => {
  it("grants a session to one holder at a time, with a growing epoch recorded for fencing", async () => {
    const session_id = await newSession();
    const a = manager("A");
    const b = manager("B");
    const first = await a.acquire(session_id);
    expect(first?.epoch).toBe(1);
    expect(await b.acquire(session_id)).toBeNull();
    expect(await a.acquire(session_id)).toBeNull();
    const { rows } = await pool.query("SELECT holder_id, epoch FROM turn_leases WHERE session_id = $1", [
      session_id,
    ]);
    expect(rows).toEqual([{ holder_id: "A", epoch: 1 }]);

    await first?.release();
    expect(first?.lost.aborted).toBe(false);
    const second = await b.acquire(session_id);
    expect(second?.epoch).toBe(2);
    const epochRow = await pool.query("SELECT lease_epoch FROM sessions WHERE session_id = $1", [session_id]);
    expect(epochRow.rows).toEqual([{ lease_epoch: 2 }]);
  });

  it("lets exactly one of many concurrent acquirers win", async () => {
    const session_id = await newSession();
    const contenders = ["A", "B", "C", "D"].map(manager);
    const leases = await Promise.all(
      contenders.flatMap((contender) => [contender.acquire(session_id), contender.acquire(session_id)]),
    );
    expect(leases.filter((lease) => lease !== null)).toHaveLength(1);
  });

  it("frees a dead holder's sessions for takeover and fences the former holder's writes", async () => {
    const session_id = await newSession();
    const a = manager("A");
    const b = manager("B");
    const held = await a.acquire(session_id);
    if (!held) throw new Error("A should get the lease");
    await store.commit({
      ...messageCommitOf(buildUserMessage({ session_id, message_id: "message:1", sequence: 1 })),
      epoch: held.epoch,
    });
    expect(await b.acquire(session_id)).toBeNull();

    await a.close();
    let taken = await b.acquire(session_id);
    while (!taken) taken = await b.acquire(session_id);
    expect(taken.epoch).toBe(held.epoch + 1);
    const stale = store.commit({
      ...messageCommitOf(buildUserMessage({ session_id, message_id: "message:2", sequence: 2 })),
      epoch: held.epoch,
    });
    await expect(stale).rejects.toBeInstanceOf(StoreConflictError);
    await expect(stale).rejects.toMatchObject({ kind: "fenced" });
  });

  it("aborts `lost` when the lock connection dies, and can acquire again on a new connection", async () => {
    const session_id = await newSession();
    const a = manager("A");
    const held = await a.acquire(session_id);
    if (!held) throw new Error("A should get the lease");
    await pool.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'parley-turn-leases' AND datname = current_database()",
    );
    const reason = await aborted(held.lost);
    expect(String(reason)).toContain(`Turn lease of session ${session_id} lost`);
    const again = await a.acquire(session_id);
    expect(again?.epoch).toBe(held.epoch + 1);
  });

  it("runs concurrent acquisitions, releases and heartbeats one at a time on its connection: no pg warning, no failure", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on("warning", onWarning);
    try {
      const sessions: string[] = [];
      for (let index = 0; index < 40; index += 1) sessions.push(await newSession());
      const a = manager("A");
      const lostReasons: unknown[] = [];
      await Promise.all(
        sessions.map(async (session_id) => {
          for (let round = 0; round < 3; round += 1) {
            const lease = await a.acquire(session_id);
            if (!lease) throw new Error(`A should get ${session_id}`);
            lease.lost.addEventListener("abort", () => lostReasons.push(lease.lost.reason));
            // Hold across a few heartbeats (100 ms) while the other sessions acquire and release.
            await new Promise((resolve) => setTimeout(resolve, 150));
            await lease.release();
          }
        }),
      );
      await new Promise((resolve) => setImmediate(resolve));

      expect(warnings).toEqual([]);
      expect(lostReasons).toEqual([]);
      const { rows } = await pool.query<{ lease_epoch: number }>(
        "SELECT lease_epoch FROM sessions WHERE session_id = ANY($1) ORDER BY session_id",
        [sessions],
      );
      expect(rows.map((row) => row.lease_epoch)).toEqual(sessions.map(() => 3));
      const { rows: recorded } = await pool.query("SELECT 1 FROM turn_leases WHERE session_id = ANY($1)", [
        sessions,
      ]);
      expect(recorded).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("an acquisition caught by the death of the lock connection retries on a new one instead of failing", async () => {
    const sessions: string[] = [];
    for (let index = 0; index < 60; index += 1) sessions.push(await newSession());
    const a = manager("A");
    await a.acquire(await newSession()); // opens the lock connection
    const acquisitions = Promise.allSettled(sessions.map((session_id) => a.acquire(session_id)));
    await pool.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'parley-turn-leases' AND datname = current_database()",
    );
    const results = await acquisitions;

    expect(results.filter((result) => result.status === "rejected")).toEqual([]);
    expect(results.every((result) => result.status === "fulfilled" && result.value !== null)).toBe(true);
    const live = results.flatMap((result) =>
      result.status === "fulfilled" && result.value && !result.value.lost.aborted ? [result.value] : [],
    );
    // Every lease still live is really held: its session cannot be taken by another holder.
    const b = manager("B");
    for (const lease of live) expect(await b.acquire(lease.session_id)).toBeNull();
  });

  it("refuses to lease an unknown session and leaves it lockable", async () => {
    const a = manager("A");
    await expect(a.acquire("session:missing")).rejects.toThrow(
      "Cannot lease unknown session: session:missing",
    );
    await store.createSession(buildSessionRecord({ session_id: "session:missing" }));
    expect((await manager("B").acquire("session:missing"))?.epoch).toBe(1);
  });
});
