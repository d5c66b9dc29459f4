import type { AuthStore } from "@parley/session-core";
import { ParleyError } from "@parley/session-core";
import type { Logger } from "pino";

/** A long-lived connection (a WebSocket or an SSE stream) and the token it signed in with. */
export interface OpenConnection {
  user_id: string;
  token_hash: string;
  expires_at: number | null;
  /** Ends the connection now; its client sees it closed. */
  close(reason: string): void;
}

/**
 * The long-lived connections of this instance, per user. They authenticate once, so they are
 * re-checked: every `recheck_ms` (and at once after a revocation here) one query asks which of
 * their tokens still authenticate, and those revoked (on any instance, or by the CLI) or expired
 * are closed. Also caps the connections per user (`limit_exceeded`).
 */
export class OpenConnections {
  readonly #auth: Pick<AuthStore, "liveTokenHashes">;
  readonly #max_per_user: number;
  readonly #now: () => number;
  readonly #logger: Logger;
  readonly #byUser = new Map<string, Set<OpenConnection>>();
  readonly #timer: NodeJS.Timeout;
  #checking: Promise<void> | null = null;

  constructor(options: {
    auth: Pick<AuthStore, "liveTokenHashes">;
    max_per_user: number;
    recheck_ms: number;
    logger: Logger;
    now?: () => number;
  }) {
    this.#auth = options.auth;
    this.#max_per_user = options.max_per_user;
    this.#now = options.now ?? Date.now;
    this.#logger = options.logger;
    this.#timer = setInterval(() => void this.recheck(), options.recheck_ms);
    this.#timer.unref();
  }

  /** Registers a connection; returns its release. Refuses one over the user's limit. */
  open(connection: OpenConnection): () => void {
    let connections = this.#byUser.get(connection.user_id);
    if (connections === undefined) {
      connections = new Set();
      this.#byUser.set(connection.user_id, connections);
    }
    if (connections.size >= this.#max_per_user) {
      throw new ParleyError(
        "limit_exceeded",
        `Too many open connections for this user (the limit is ${this.#max_per_user})`,
      );
    }
    const own = connections;
    own.add(connection);
    return () => {
      own.delete(connection);
      if (own.size === 0 && this.#byUser.get(connection.user_id) === own) {
        this.#byUser.delete(connection.user_id);
      }
    };
  }

  /** How many connections the user has open here. */
  countFor(user_id: string): number {
    return this.#byUser.get(user_id)?.size ?? 0;
  }

  /**
   * Closes the connections whose token expired or no longer authenticates; only the user's when
   * `user_id` is given. Runs one check at a time (a call during a check waits for the next one).
   */
  async recheck(user_id?: string): Promise<void> {
    while (this.#checking !== null) await this.#checking;
    this.#checking = this.#check(user_id).finally(() => {
      this.#checking = null;
    });
    await this.#checking;
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  async #check(user_id: string | undefined): Promise<void> {
    const connections = [...this.#connectionsOf(user_id)];
    if (connections.length === 0) return;
    const now = this.#now();
    const current = connections.filter((connection) => {
      if (connection.expires_at === null || connection.expires_at > now) return true;
      connection.close("token expired");
      return false;
    });
    if (current.length === 0) return;
    let live: Set<string>;
    try {
      live = await this.#auth.liveTokenHashes([...new Set(current.map((c) => c.token_hash))]);
    } catch (error) {
      // The database is unreachable: requests fail anyway; check again next round.
      this.#logger.warn({ err: error }, "could not re-check the tokens of open connections");
      return;
    }
    for (const connection of current) {
      if (!live.has(connection.token_hash)) connection.close("token revoked");
    }
  }

  *#connectionsOf(user_id: string | undefined): Iterable<OpenConnection> {
    if (user_id !== undefined) {
      yield* this.#byUser.get(user_id) ?? [];
      return;
    }
    for (const connections of this.#byUser.values()) yield* connections;
  }
}
