import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { RuntimeLogger, TurnLease, TurnLeaseManager } from "@parley/session-core";
import pg from "pg";

export interface PostgresTurnLeaseManagerOptions {
  url: string;
  /** Recorded in `turn_leases.holder_id`; defaults to `<host>:<pid>:<random>`. */
  holder_id?: string;
  /** How often the lock connection is probed while leases are held, in ms (default 500). */
  heartbeat_ms?: number;
  logger?: Pick<RuntimeLogger, "warn" | "error">;
}

interface HeldLease {
  epoch: number;
  controller: AbortController;
}

/**
 * `TurnLeaseManager` on PostgreSQL session-level advisory locks. All leases of this manager live on
 * ONE dedicated connection: when the process dies, the server ends that backend and every lock is
 * free at once, so another process can take the sessions over (server-side TCP keepalives of ~2 s
 * cover a vanished host). Each acquisition increments `sessions.lease_epoch` (the fencing token the
 * store checks) and records the holder in `turn_leases`. A heartbeat probes the connection; if it
 * fails or the connection errors, every lease's `lost` is aborted and the next `acquire` opens a new
 * connection. Leases are not re-entrant: a session held here answers null.
 */
export class PostgresTurnLeaseManager implements TurnLeaseManager {
  readonly holder_id: string;
  readonly #url: string;
  readonly #heartbeatMs: number;
  readonly #logger: Pick<RuntimeLogger, "warn" | "error"> | undefined;
  readonly #held = new Map<string, HeldLease>();
  /** Sessions with an acquisition in flight (reserved before the first await). */
  readonly #acquiring = new Set<string>();
  #client: pg.Client | null = null;
  #connecting: Promise<pg.Client> | null = null;
  #heartbeat: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(options: PostgresTurnLeaseManagerOptions) {
    this.#url = options.url;
    this.holder_id = options.holder_id ?? `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
    this.#heartbeatMs = options.heartbeat_ms ?? 500;
    this.#logger = options.logger;
  }

  async acquire(session_id: string): Promise<TurnLease | null> {
    if (this.#closed) throw new Error("PostgresTurnLeaseManager is closed");
    if (this.#held.has(session_id) || this.#acquiring.has(session_id)) return null;
    this.#acquiring.add(session_id);
    try {
      const client = await this.#connection();
      const { rows } = await client.query<{ locked: boolean }>(
        "SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked",
        [session_id],
      );
      if (!rows[0]?.locked) return null;
      const epoch = await this.#advanceEpoch(client, session_id);
      if (this.#client !== client) return null;
      const held: HeldLease = { epoch, controller: new AbortController() };
      this.#held.set(session_id, held);
      this.#startHeartbeat();
      return {
        session_id,
        epoch,
        lost: held.controller.signal,
        release: () => this.#release(session_id, held, client),
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
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(() => undefined);
  }

  /** Drops the lock connection as a network failure would (tests of lease loss). */
  simulateConnectionLoss(): void {
    const client = this.#client as (pg.Client & { connection?: { stream?: { destroy(): void } } }) | null;
    client?.connection?.stream?.destroy();
  }

  async #advanceEpoch(client: pg.Client, session_id: string): Promise<number> {
    try {
      const { rows } = await client.query<{ lease_epoch: number }>(
        `WITH advanced AS (
           UPDATE sessions SET lease_epoch = lease_epoch + 1 WHERE session_id = $1 RETURNING lease_epoch
         ), recorded AS (
           INSERT INTO turn_leases (session_id, epoch, holder_id, acquired_at)
           SELECT $1, lease_epoch, $2, $3 FROM advanced
           ON CONFLICT (session_id) DO UPDATE
             SET epoch = EXCLUDED.epoch, holder_id = EXCLUDED.holder_id, acquired_at = EXCLUDED.acquired_at
         )
         SELECT lease_epoch FROM advanced`,
        [session_id, this.holder_id, Date.now()],
      );
      const epoch = rows[0]?.lease_epoch;
      if (epoch === undefined) throw new Error(`Cannot lease unknown session: ${session_id}`);
      return epoch;
    } catch (error) {
      await client
        .query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [session_id])
        .catch(() => undefined);
      throw error;
    }
  }

  async #release(session_id: string, held: HeldLease, client: pg.Client): Promise<void> {
    if (this.#held.get(session_id) !== held) return;
    this.#held.delete(session_id);
    if (this.#held.size === 0) this.#stopHeartbeat();
    if (this.#client !== client) return;
    await client
      .query(
        `WITH forgotten AS (DELETE FROM turn_leases WHERE session_id = $1 AND holder_id = $2 AND epoch = $3)
         SELECT pg_advisory_unlock(hashtextextended($1, 0))`,
        [session_id, this.holder_id, held.epoch],
      )
      .catch((error: unknown) => this.#logger?.warn({ err: error, session_id }, "lease release failed"));
  }

  #connection(): Promise<pg.Client> {
    if (this.#client) return Promise.resolve(this.#client);
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = null;
    });
    return this.#connecting;
  }

  async #connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.#url,
      keepAlive: true,
      keepAliveInitialDelayMillis: 1_000,
    });
    client.on("error", (error) => this.#lose(client, error));
    client.on("end", () => this.#lose(client, new Error("lease connection ended")));
    await client.connect();
    // Let the server notice a vanished holder (no FIN) within ~2 s and free its locks.
    await client.query(
      "SET tcp_keepalives_idle = 1; SET tcp_keepalives_interval = 1; SET tcp_keepalives_count = 1; SET application_name = 'parley-turn-leases'",
    );
    if (this.#closed) {
      await client.end().catch(() => undefined);
      throw new Error("PostgresTurnLeaseManager is closed");
    }
    this.#client = client;
    return client;
  }

  /** The lock connection is gone: the server has freed its locks, so every lease here is lost. */
  #lose(client: pg.Client, error: Error): void {
    if (this.#client !== client) return;
    this.#client = null;
    client.removeAllListeners("end");
    client.end().catch(() => undefined);
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
    this.#heartbeat = setInterval(() => {
      const client = this.#client;
      if (!client) return;
      const timeout = setTimeout(
        () => this.#lose(client, new Error("lease heartbeat timed out")),
        this.#heartbeatMs * 4,
      );
      client
        .query("SELECT 1")
        .catch((error: Error) => this.#lose(client, error))
        .finally(() => clearTimeout(timeout));
    }, this.#heartbeatMs);
    this.#heartbeat.unref();
  }

  #stopHeartbeat(): void {
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    this.#heartbeat = null;
  }
}
