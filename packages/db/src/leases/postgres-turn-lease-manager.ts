import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { RuntimeLogger, TurnLease, TurnLeaseManager, TurnLock } from "@parley/session-core";
import pg from "pg";
import { destroyClientSocket, discardClient, endClient } from "../end-client.js";
import { batchedLockCall, type LockOperation, type LockQueue } from "./lock-batch.js";
import { lockConnectionApplicationName } from "./turn-lease-holder.js";

export interface PostgresTurnLeaseManagerOptions {
  /** Where the dedicated lock connection connects: it holds every advisory lock of this manager. */
  url: string;
  /**
   * Runs the leases' one write, the epoch advance of each acquisition: the pool the rest of
   * `@parley/db` commits on, so many sessions' writes run side by side and share fsyncs instead of
   * queueing one commit at a time on the lock connection.
   */
  pool: pg.Pool;
  /**
   * Names the holder: the lock connection's `application_name` is `parley-turn-leases:<holder_id>`
   * (63 bytes at most), so the server tells who holds a session (`turnLeaseHolder`). Defaults to
   * `<host>:<pid>:<random>`.
   */
  holder_id?: string;
  /** How often the lock connection is probed while leases are held, in ms (default 500). */
  heartbeat_ms?: number;
  logger?: Pick<RuntimeLogger, "warn" | "error">;
}

interface HeldLease {
  controller: AbortController;
}

/**
 * The dedicated lock connection and the one queue its queries run in: a `pg.Client` runs one query
 * at a time, and the lock, unlock and heartbeat queries of many sessions share it (none writes).
 */
interface LockConnection extends LockQueue {
  client: pg.Client;
  tail: Promise<unknown>;
  probing: boolean;
}

/**
 * The lock connection died (or was replaced) under a query, so the server has dropped its locks; or
 * the epoch write's connection died under it. Either way the acquisition may be tried again.
 */
class LockConnectionLostError extends Error {
  override readonly name = "LockConnectionLostError";
}

/**
 * Tries of one acquisition: a server going away can fail it twice (the epoch write's connection,
 * then the lock connection under the retry), so the third runs on connections opened after both.
 */
const ACQUIRE_ATTEMPTS = 3;

/** Server errors that mean the backend is gone (admin shutdown / terminate, connection exceptions). */
function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof pg.DatabaseError)) return true;
  const code = error.code ?? "";
  return code.startsWith("57P") || code.startsWith("08");
}

/**
 * `TurnLeaseManager` on PostgreSQL session-level advisory locks. All locks of this manager live on
 * ONE dedicated connection: when the process dies, the server ends that backend and every lock is
 * free at once, so another process can take the sessions over (server-side TCP keepalives of ~2 s
 * cover a vanished host). The lock is the only record of the holder: the lock connection's
 * `application_name` names it, so `pg_locks` joined with `pg_stat_activity` tells who holds a session
 * (`turnLeaseHolder`), and after a crash names no one. Each acquisition writes once: it increments
 * `sessions.lease_epoch` (the fencing token the store checks) on the shared pool; a release writes
 * nothing, it only unlocks. So the lock connection only locks, unlocks and probes, one query at a time
 * in call order (consecutive locks or unlocks of many sessions as one query: `batchedLockCall`), and
 * no session's lease waits behind another session's commit. A heartbeat probes the
 * connection once the queue ahead of it has drained (so it measures the server, not the load); if it
 * fails or the connection errors, every lease's `lost` is aborted, and an acquisition caught by that
 * (also while its epoch write ran on the pool), or whose epoch write lost its own connection, is
 * tried again, on a new lock connection where the old one died. Leases are not
 * re-entrant: a session held here answers null.
 */
export class PostgresTurnLeaseManager implements TurnLeaseManager {
  readonly holder_id: string;
  readonly #url: string;
  readonly #pool: pg.Pool;
  readonly #heartbeatMs: number;
  readonly #logger: Pick<RuntimeLogger, "warn" | "error"> | undefined;
  readonly #held = new Map<string, HeldLease>();
  /** Sessions with an acquisition in flight (reserved before the first await). */
  readonly #acquiring = new Set<string>();
  #connection: LockConnection | null = null;
  #connecting: Promise<LockConnection> | null = null;
  #heartbeat: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(options: PostgresTurnLeaseManagerOptions) {
    this.#url = options.url;
    this.#pool = options.pool;
    this.holder_id = options.holder_id ?? `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
    this.#heartbeatMs = options.heartbeat_ms ?? 500;
    this.#logger = options.logger;
  }

  async acquire(session_id: string): Promise<TurnLease | null> {
    if (this.#closed) throw new Error("PostgresTurnLeaseManager is closed");
    if (this.#held.has(session_id) || this.#acquiring.has(session_id)) return null;
    this.#acquiring.add(session_id);
    try {
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await this.#acquireOn(await this.#currentConnection(), session_id);
        } catch (error) {
          if (!(error instanceof LockConnectionLostError) || this.#closed || attempt >= ACQUIRE_ATTEMPTS) {
            throw error;
          }
          this.#logger?.warn({ err: error, session_id }, "lease connection lost while acquiring; retrying");
        }
      }
    } finally {
      this.#acquiring.delete(session_id);
    }
  }

  /**
   * The advisory lock alone: no write. The caller's commit advances the epoch (`SessionCommit.claim`)
   * and hands it to `claimed`. A lock connection lost meanwhile aborts `lost`; a commit that claims
   * anyway only fences (a later holder advances the epoch again), it never lets two holders write.
   */
  async lock(session_id: string): Promise<TurnLock | null> {
    if (this.#closed) throw new Error("PostgresTurnLeaseManager is closed");
    if (this.#held.has(session_id) || this.#acquiring.has(session_id)) return null;
    this.#acquiring.add(session_id);
    try {
      const connection = await this.#currentConnection();
      if (!(await this.#batched(connection, "lock", session_id))) return null;
      if (this.#closed) throw new Error("PostgresTurnLeaseManager is closed");
      const held: HeldLease = { controller: new AbortController() };
      this.#held.set(session_id, held);
      this.#startHeartbeat();
      const release = () => this.#release(session_id, held, connection);
      return {
        session_id,
        holder_id: this.holder_id,
        lost: held.controller.signal,
        claimed: (epoch) => ({ session_id, epoch, lost: held.controller.signal, release }),
        release,
      };
    } finally {
      this.#acquiring.delete(session_id);
    }
  }

  /** Releases every lease (without firing `lost`) and closes the lock connection. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#stopHeartbeat();
    this.#held.clear();
    const connection = this.#connection;
    this.#connection = null;
    if (connection) {
      await discardClient(connection.client);
    }
  }

  /** Drops the lock connection as a network failure would (tests of lease loss). */
  simulateConnectionLoss(): void {
    if (this.#connection) destroyClientSocket(this.#connection.client);
  }

  async #acquireOn(connection: LockConnection, session_id: string): Promise<TurnLease | null> {
    if (!(await this.#batched(connection, "lock", session_id))) return null;
    const epoch = await this.#advanceEpoch(connection, session_id);
    if (this.#closed) throw new Error("PostgresTurnLeaseManager is closed");
    // The epoch was written on the pool, so its success says nothing of the lock connection: if that
    // died meanwhile, the lock went with it and may be another holder's by now. The lease is not
    // handed out; the retry locks anew and advances again. The epoch this attempt advanced only
    // fences: at worst it ends a newer holder's Turn as `fenced`, it never lets two holders write.
    if (this.#connection !== connection) throw new LockConnectionLostError("lease connection replaced");
    const held: HeldLease = { controller: new AbortController() };
    this.#held.set(session_id, held);
    this.#startHeartbeat();
    return {
      session_id,
      epoch,
      lost: held.controller.signal,
      release: () => this.#release(session_id, held, connection),
    };
  }

  async #advanceEpoch(connection: LockConnection, session_id: string): Promise<number> {
    let rows: { lease_epoch: number }[];
    try {
      // One statement: the epoch advance, and the session's unfinished Turn row (the one its
      // `active_turn_id` names) records its holder and epoch (DESIGN §10.7; the claim raises the
      // epoch, so every write of a former holder fails).
      ({ rows } = await this.#pool.query<{ lease_epoch: number }>(
        `WITH advanced AS (
           UPDATE sessions SET lease_epoch = lease_epoch + 1 WHERE session_id = $1
           RETURNING lease_epoch, active_turn_id
         ), claimed AS (
           UPDATE turns SET holder = $2, epoch = advanced.lease_epoch, updated_at = $3
             FROM advanced
            WHERE turns.session_id = $1 AND turns.turn_id = advanced.active_turn_id
              AND turns.state <> 'finished'
         )
         SELECT lease_epoch FROM advanced`,
        [session_id, this.holder_id, Date.now()],
      ));
    } catch (error) {
      await this.#unlock(connection, session_id).catch(() => undefined);
      // A server going away ends the write's connection and the lock connection both, and the
      // client may hear of either first; an admin may end the write's alone. Either way the
      // acquisition is retried (on a new lock connection if this one died): a write that committed
      // before its connection died only fences.
      if (!this.#closed && (this.#connection !== connection || isConnectionFailure(error))) {
        throw new LockConnectionLostError(`lease connection lost: ${String(error)}`, { cause: error });
      }
      throw error;
    }
    const epoch = rows[0]?.lease_epoch;
    if (epoch === undefined) {
      await this.#unlock(connection, session_id).catch(() => undefined);
      throw new Error(`Cannot lease unknown session: ${session_id}`);
    }
    return epoch;
  }

  /** Only unlocks: the lock is the whole record of the holder, so a release writes nothing. */
  async #release(session_id: string, held: HeldLease, connection: LockConnection): Promise<void> {
    if (this.#held.get(session_id) !== held) return;
    this.#held.delete(session_id);
    if (this.#held.size === 0) this.#stopHeartbeat();
    if (this.#connection !== connection) return;
    await this.#unlock(connection, session_id).catch((error: unknown) => {
      // A lost connection took the lock with it: nothing is left to release.
      if (!(error instanceof LockConnectionLostError)) {
        this.#logger?.warn({ err: error, session_id }, "lease release failed");
      }
    });
  }

  #unlock(connection: LockConnection, session_id: string): Promise<unknown> {
    return this.#batched(connection, "unlock", session_id);
  }

  #batched(connection: LockConnection, kind: LockOperation, session_id: string): Promise<boolean> {
    return batchedLockCall(connection, kind, session_id, (task) => this.#enqueue(connection, task));
  }

  /** Runs `task` on the connection after every query queued before it. */
  #enqueue<T>(connection: LockConnection, task: (client: pg.Client) => Promise<T>): Promise<T> {
    // A batch queued before this task is no longer the tail: a later call must not join it.
    connection.open = null;
    const run = connection.tail.then(async () => {
      if (this.#connection !== connection) throw new LockConnectionLostError("lease connection lost");
      try {
        return await task(connection.client);
      } catch (error) {
        if (error instanceof LockConnectionLostError || !isConnectionFailure(error)) throw error;
        this.#lose(connection, error instanceof Error ? error : new Error(String(error)));
        throw new LockConnectionLostError(`lease connection lost: ${String(error)}`, { cause: error });
      }
    });
    connection.tail = run.catch(() => undefined);
    return run;
  }

  #currentConnection(): Promise<LockConnection> {
    if (this.#connection) return Promise.resolve(this.#connection);
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = null;
    });
    return this.#connecting;
  }

  async #connect(): Promise<LockConnection> {
    const client = new pg.Client({
      connectionString: this.#url,
      keepAlive: true,
      keepAliveInitialDelayMillis: 1_000,
    });
    const connection: LockConnection = { client, tail: Promise.resolve(), probing: false, open: null };
    client.on("error", (error) => this.#lose(connection, error));
    client.on("end", () => this.#lose(connection, new Error("lease connection ended")));
    try {
      await client.connect();
      // Let the server notice a vanished holder (no FIN) within ~2 s and free its locks; name the
      // holder, who the server then shows beside each of its locks. SET, not the connection
      // parameter, so that an `application_name` in the URL cannot hide the holder.
      const name = client.escapeLiteral(lockConnectionApplicationName(this.holder_id));
      await client.query(
        `SET tcp_keepalives_idle = 1; SET tcp_keepalives_interval = 1; SET tcp_keepalives_count = 1; SET application_name = ${name}`,
      );
    } catch (error) {
      await discardClient(client);
      throw error;
    }
    if (this.#closed) {
      await discardClient(client);
      throw new Error("PostgresTurnLeaseManager is closed");
    }
    this.#connection = connection;
    return connection;
  }

  /** The lock connection is gone: the server has freed its locks, so every lease here is lost. */
  #lose(connection: LockConnection, error: Error): void {
    if (this.#connection !== connection) return;
    this.#connection = null;
    connection.client.removeAllListeners("end");
    void endClient(connection.client);
    this.#stopHeartbeat();
    const lost = [...this.#held.entries()];
    this.#held.clear();
    if (lost.length > 0 && !this.#closed) {
      this.#logger?.warn({ err: error, sessions: lost.length }, "turn lease connection lost");
    }
    for (const [session_id, held] of lost) {
      held.controller.abort(new Error(`Turn lease of session ${session_id} lost: ${error.message}`));
    }
  }

  #startHeartbeat(): void {
    if (this.#heartbeat) return;
    this.#heartbeat = setInterval(() => this.#probe(), this.#heartbeatMs);
    this.#heartbeat.unref();
  }

  /** One `SELECT 1` at a time, timed from when it reaches the connection (not while queued). */
  #probe(): void {
    const connection = this.#connection;
    if (!connection || connection.probing) return;
    connection.probing = true;
    this.#enqueue(connection, async (client) => {
      let answered = false;
      // Timers run before the event loop reads its sockets: after a stall of the loop (a starved
      // process), the deadline fires while the reply already waits unread. Deciding one turn later
      // (`setImmediate` runs after the sockets are read) loses the lease only when the server truly
      // has not answered — a false loss would hand a held Turn to another instance.
      const timeout = setTimeout(
        () =>
          setImmediate(() => {
            if (!answered) this.#lose(connection, new Error("lease heartbeat timed out"));
          }),
        this.#heartbeatMs * 4,
      );
      try {
        await client.query("SELECT 1");
        answered = true;
      } finally {
        clearTimeout(timeout);
      }
    })
      .catch(() => undefined)
      .finally(() => {
        connection.probing = false;
      });
  }

  #stopHeartbeat(): void {
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    this.#heartbeat = null;
  }
}
