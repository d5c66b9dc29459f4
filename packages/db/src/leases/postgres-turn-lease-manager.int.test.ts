import { StoreConflictError, type TurnLease } from "@parley/session-core";
import { buildSessionRecord, buildUserMessage, messageCommitOf } from "@parley/session-core/testing";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PrismaSessionStore } from "../session-store/prisma-session-store.js";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.js";
import {
  PostgresTurnLeaseManager,
  type PostgresTurnLeaseManagerOptions,
} from "./postgres-turn-lease-manager.js";
import { turnLeaseHolder } from "./turn-lease-holder.js";

let database: TestDatabase;
let pool: pg.Pool;
let store: PrismaSessionStore;
const managers: PostgresTurnLeaseManager[] = [];
let sessionCounter = 0;

beforeAll(async () => {
  database = await createTestDatabase();
  // The lease writes run here too: 10 connections, the shared pool's default on 2 cores.
  pool = new pg.Pool({ connectionString: database.url, max: 10 });
  store = new PrismaSessionStore(pool);
});
afterEach(async () => {
  for (const manager of managers.splice(0)) await manager.close();
});
afterAll(async () => {
  await pool.end();
  await database.drop();
});

function manager(
  holder_id: string,
  options: Partial<PostgresTurnLeaseManagerOptions> = {},
): PostgresTurnLeaseManager {
  const created = new PostgresTurnLeaseManager({
    url: database.url,
    pool,
    holder_id,
    heartbeat_ms: 100,
    ...options,
  });
  managers.push(created);
  return created;
}

async function newSession(): Promise<string> {
  sessionCounter += 1;
  const session_id = `session:lease-${sessionCounter}`;
  await store.createSession(buildSessionRecord({ session_id }));
  return session_id;
}

/** A bound on waits for a state of the server: a hang fails the case, no duration is asserted. */
const WAIT_BOUND_MS = 20_000;

/** Polls `probe` until it answers true; fails naming `what` once the bound has passed. */
async function until(what: string, probe: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_BOUND_MS;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${WAIT_BOUND_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** `promise` with whether it has settled yet (a rejection is kept for whoever awaits `promise`). */
function tracked<T>(promise: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  return { promise, settled: () => settled };
}

/** Another connection holds `FOR UPDATE` row locks in an open transaction until `end()`. */
async function lockRows(text: string, values: unknown[]): Promise<{ end(): Promise<void> }> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await client.query("BEGIN");
  await client.query(text, values);
  let ended: Promise<void> | null = null;
  return {
    end() {
      ended ??= client.query("ROLLBACK").then(() => client.end());
      return ended;
    },
  };
}

/** Statements of this database waiting for a lock (a row lock here), by whether the lock connection sent them. */
async function lockWaiters(): Promise<{ statement: string; on_lock_connection: boolean }[]> {
  const { rows } = await pool.query<{ statement: string; on_lock_connection: boolean }>(
    `SELECT CASE WHEN query LIKE '%UPDATE sessions SET lease_epoch%' THEN 'epoch advance'
                 ELSE query END AS statement,
            application_name LIKE 'parley-turn-leases:%' AS on_lock_connection
       FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()
      ORDER BY statement`,
  );
  return rows;
}

/** The session's fencing epoch as committed (`sessions.lease_epoch`). */
async function committedEpoch(session_id: string): Promise<number | undefined> {
  const { rows } = await pool.query<{ lease_epoch: number }>(
    "SELECT lease_epoch FROM sessions WHERE session_id = $1",
    [session_id],
  );
  return rows[0]?.lease_epoch;
}

/** Who holds each session's lease, as the server knows it (null: the advisory lock is free). */
function holders(sessions: string[]): Promise<(string | null)[]> {
  return Promise.all(sessions.map((session_id) => turnLeaseHolder(pool, session_id)));
}

/** Ends manager `holder_id`'s lock connection from the server side, as a restart or an admin would. */
async function terminateLockConnectionOf(holder_id: string): Promise<void> {
  await pool.query(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = $1`,
    [`parley-turn-leases:${holder_id}`],
  );
}

function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    signal.addEventListener("abort", () => resolve(signal.reason), { once: true });
  });
}

describe("PostgresTurnLeaseManager", () => {
  it("grants a session to one holder at a time, named by its lock, with a growing epoch for fencing", async () => {
    const session_id = await newSession();
    const a = manager("A");
    const b = manager("B");
    expect(await turnLeaseHolder(pool, session_id)).toBeNull();
    const first = await a.acquire(session_id);
    expect(first?.epoch).toBe(1);
    expect(await b.acquire(session_id)).toBeNull();
    expect(await a.acquire(session_id)).toBeNull();
    expect(await turnLeaseHolder(pool, session_id)).toBe("A");
    expect(await committedEpoch(session_id)).toBe(1);

    await first?.release();
    expect(first?.lost.aborted).toBe(false);
    expect(await turnLeaseHolder(pool, session_id)).toBeNull();
    const second = await b.acquire(session_id);
    expect(second?.epoch).toBe(2);
    expect(await turnLeaseHolder(pool, session_id)).toBe("B");
    expect(await committedEpoch(session_id)).toBe(2);
  });

  it("names the holder on its lock connection cut to the server's 63 bytes, in printable ASCII", async () => {
    const session_id = await newSession();
    const holder_id = `host-é:${"x".repeat(80)}`;
    await manager(holder_id).acquire(session_id);
    // 63 bytes less the 19 of `parley-turn-leases:`; the non-ASCII character shown as `?`.
    expect(await turnLeaseHolder(pool, session_id)).toBe(`host-?:${"x".repeat(37)}`);
  });

  it("lets exactly one of many concurrent acquirers win", async () => {
    const session_id = await newSession();
    const contenders = ["A", "B", "C", "D"].map((holder_id) => manager(holder_id));
    const leases = await Promise.all(
      contenders.flatMap((contender) => [contender.acquire(session_id), contender.acquire(session_id)]),
    );
    expect(leases.filter((lease) => lease !== null)).toHaveLength(1);
  });

  it("locks and unlocks 30 sessions called at once (batched on its connection): each lock taken once, each given back", async () => {
    const sessions: string[] = [];
    for (let index = 0; index < 30; index += 1) sessions.push(await newSession());
    const [taken, ...rest] = sessions;
    const a = manager("A");
    const b = manager("B");
    const first = await b.lock(taken as string);
    expect(first).not.toBeNull();

    const locks = await Promise.all(sessions.map((session_id) => a.lock(session_id)));

    expect(locks.map((lock) => lock !== null)).toEqual([false, ...rest.map(() => true)]);
    expect(await holders(sessions)).toEqual(["B", ...rest.map(() => "A")]);
    // One advisory lock per session: none was taken twice.
    const { rows } = await pool.query<{ locks: number }>(
      `SELECT count(*)::int AS locks FROM pg_locks l JOIN pg_stat_activity a USING (pid)
        WHERE l.locktype = 'advisory' AND a.application_name = 'parley-turn-leases:A'`,
    );
    expect(rows).toEqual([{ locks: 29 }]);
    await Promise.all(locks.map((lock) => lock?.release()));
    expect(await holders(sessions)).toEqual(["B", ...rest.map(() => null)]);
    await first?.release();
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
    expect(await turnLeaseHolder(pool, session_id)).toBe("B");
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
    await terminateLockConnectionOf("A");
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
      expect(await holders(sessions)).toEqual(sessions.map(() => null));
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
    await terminateLockConnectionOf("A");
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

  it("writes epochs on the pool: while one session's epoch write waits on a row lock, 50 others are acquired", async () => {
    const blocked = await newSession();
    const others: string[] = [];
    for (let index = 0; index < 50; index += 1) others.push(await newSession());
    // Each session starts from its own epoch, so every lease must carry its own session's next one.
    await pool.query(
      `UPDATE sessions SET lease_epoch = start.epoch
         FROM unnest($1::text[]) WITH ORDINALITY AS start(session_id, epoch)
        WHERE sessions.session_id = start.session_id`,
      [others],
    );
    const a = manager("A");
    const rowLock = await lockRows("SELECT 1 FROM sessions WHERE session_id = $1 FOR UPDATE", [blocked]);
    try {
      const first = tracked(a.acquire(blocked));
      await until("the blocked session's epoch advance waits on its row", async () => {
        return (await lockWaiters()).length === 1;
      });

      const rest = tracked(Promise.all(others.map((session_id) => a.acquire(session_id))));
      await until("the 50 other acquisitions", rest.settled);
      const leases = await rest.promise;
      // The one write still waits, on a pool connection: the lock connection stayed free for the rest.
      expect(await lockWaiters()).toEqual([{ statement: "epoch advance", on_lock_connection: false }]);
      expect(leases.map((lease) => lease?.epoch)).toEqual(others.map((_, index) => index + 2));
      const { rows } = await pool.query<{ lease_epoch: number }>(
        `SELECT lease_epoch FROM unnest($1::text[]) WITH ORDINALITY AS listed(session_id, position)
           JOIN sessions USING (session_id) ORDER BY position`,
        [others],
      );
      expect(rows.map((row) => row.lease_epoch)).toEqual(others.map((_, index) => index + 2));
      // The blocked session's lock is A's too: it was taken before the epoch write.
      expect(await holders([blocked, ...others])).toEqual([blocked, ...others].map(() => "A"));
      expect(first.settled()).toBe(false);

      await rowLock.end();
      const late = await first.promise;
      expect(late?.epoch).toBe(1);
      await Promise.all([late, ...leases].map((lease) => lease?.release()));
      expect(await holders([blocked, ...others])).toEqual([blocked, ...others].map(() => null));
    } finally {
      await rowLock.end();
    }
  });

  /**
   * A session whose epoch write waits on its row (locked by another connection) while `kill` ends
   * connections; the acquisition must then be retried to a lease with the session's first epoch
   * (the first write died uncommitted) unless `expected` says otherwise, and `expected.lockConnectionKept`
   * whether the retry ran on the same lock connection (another lease of the holder kept) or a new one
   * (that lease lost).
   */
  async function acquisitionRetriedAfter(
    kill: (firstWriter: number, otherLease: TurnLease) => Promise<void>,
    expected: { lockConnectionKept: boolean; epoch: number },
    /** Runs while the retry's write waits on the row. */
    whileRetryWaits: (otherLease: TurnLease) => Promise<void> = async () => undefined,
  ): Promise<void> {
    const session_id = await newSession();
    const a = manager("A");
    const other = await a.acquire(await newSession()); // opens the lock connection
    if (!other) throw new Error("A should get the other session");
    const waitingPids = async () =>
      (
        await pool.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        )
      ).rows.map((row) => row.pid);
    const rowLock = await lockRows("SELECT 1 FROM sessions WHERE session_id = $1 FOR UPDATE", [session_id]);
    try {
      const acquisition = tracked(a.acquire(session_id));
      await until("the epoch advance waits on its row", async () => (await waitingPids()).length === 1);
      const [firstWriter] = await waitingPids();
      if (firstWriter === undefined) throw new Error("no epoch write waits");
      await kill(firstWriter, other);
      // The retry's write waits on the row from another backend.
      await until("the retried epoch advance waits on its row", async () => {
        const pids = await waitingPids();
        return pids.length === 1 && pids[0] !== firstWriter;
      });
      await whileRetryWaits(other);
      await rowLock.end();
      const lease = await acquisition.promise;
      expect(lease?.epoch).toBe(expected.epoch);
      expect(await committedEpoch(session_id)).toBe(expected.epoch);
      expect(other.lost.aborted).toBe(!expected.lockConnectionKept);
      expect(await turnLeaseHolder(pool, session_id)).toBe("A");
      expect(await manager("B").acquire(session_id)).toBeNull();
    } finally {
      await rowLock.end();
    }
  }

  it("an acquisition whose lock connection dies, then its epoch write's, retries on a new lock connection", async () => {
    await acquisitionRetriedAfter(
      async (firstWriter, other) => {
        // A server going away ends both; here the client hears of the lock connection first.
        await terminateLockConnectionOf("A");
        await aborted(other.lost);
        await pool.query("SELECT pg_terminate_backend($1)", [firstWriter]);
      },
      { lockConnectionKept: false, epoch: 1 },
    );
  });

  it("an acquisition whose epoch write's connection dies retries, on the lock connection it has", async () => {
    await acquisitionRetriedAfter(
      async (firstWriter) => {
        // The other order of a server going away begins so, and an admin may end one backend alone.
        await pool.query("SELECT pg_terminate_backend($1)", [firstWriter]);
      },
      { lockConnectionKept: true, epoch: 1 },
    );
  });

  it("an acquisition that loses its epoch write's connection, then the lock connection under the retry, gets a lease on the third try", async () => {
    await acquisitionRetriedAfter(
      (firstWriter) => pool.query("SELECT pg_terminate_backend($1)", [firstWriter]).then(() => undefined),
      // The second try's write commits epoch 1 after its lock is gone, so it only fences; the
      // third locks on a new connection and advances to 2.
      { lockConnectionKept: false, epoch: 2 },
      async (other) => {
        await terminateLockConnectionOf("A");
        await aborted(other.lost);
      },
    );
  });

  it("writes nothing on release: it unlocks while the session's row is locked FOR UPDATE", async () => {
    const session_id = await newSession();
    const a = manager("A");
    const b = manager("B");
    const held = await a.acquire(session_id);
    if (!held) throw new Error("A should get the lease");
    // A write of the session's row (or of a new row referencing it) would wait on this lock.
    const rowLock = await lockRows("SELECT 1 FROM sessions WHERE session_id = $1 FOR UPDATE", [session_id]);
    try {
      const released = tracked(held.release());
      await until("A's release while the session's row is locked", released.settled);
      await released.promise;
      expect(await lockWaiters()).toEqual([]);
      expect(await turnLeaseHolder(pool, session_id)).toBeNull();
      expect(await committedEpoch(session_id)).toBe(1);

      await rowLock.end();
      expect((await b.acquire(session_id))?.epoch).toBe(2);
      expect(await turnLeaseHolder(pool, session_id)).toBe("B");
    } finally {
      await rowLock.end();
    }
  });

  it("needs no pool to release: after the pool has ended, a release still unlocks, and warns of nothing", async () => {
    const session_id = await newSession();
    const endedPool = new pg.Pool({ connectionString: database.url, max: 1 });
    const warnings: string[] = [];
    const a = manager("A", {
      pool: endedPool,
      logger: { warn: (_fields, message) => warnings.push(message), error: () => undefined },
    });
    const held = await a.acquire(session_id);
    if (!held) throw new Error("A should get the lease");
    await endedPool.end();
    await held.release();
    expect(warnings).toEqual([]);
    expect(await turnLeaseHolder(pool, session_id)).toBeNull();
    expect((await manager("B").acquire(session_id))?.epoch).toBe(2);
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
