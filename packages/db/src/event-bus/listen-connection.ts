import { randomBytes } from "node:crypto";
import type { RuntimeLogger } from "@parley/session-core";
import pg from "pg";
import { destroyClientSocket, discardClient, endClient } from "../end-client.js";
import { notifyQuery } from "./notify-statement.js";

export interface ListenConnectionOptions {
  url: string;
  channel: string;
  onNotification(payload: string | undefined): void;
  /** Called after every (re)connection once LISTEN is active: read what was missed meanwhile. */
  onListening(reconnected: boolean): void;
  logger?: Pick<RuntimeLogger, "warn" | "error">;
  /** Upper bound of the reconnection back-off in ms (default 2,000). */
  maxReconnectDelayMs?: number | undefined;
  /** How often the connection proves it still hears notifications, in ms (default 1,000). */
  heartbeatIntervalMs?: number | undefined;
  /** How long a heartbeat may take before the connection is declared dead, in ms (default 1,000). */
  heartbeatTimeoutMs?: number | undefined;
}

/**
 * A dedicated connection (never a pooled one: LISTEN is per connection) that keeps listening on one
 * channel. On error or end it reconnects with back-off and reports `onListening(true)`, because any
 * notification sent while it was away is gone. A connection can also die silently (a half-open TCP
 * connection, a stalled server or proxy: no error, no end, no notifications), so it proves itself
 * every `heartbeatIntervalMs`: it NOTIFYs a channel of its own and must hear that notification
 * within `heartbeatTimeoutMs`, else it is dropped and replaced like a failed one.
 */
export class ListenConnection {
  readonly #options: ListenConnectionOptions;
  #client: pg.Client | null = null;
  #closed = false;
  #reconnectTimer: NodeJS.Timeout | null = null;
  #attempt = 0;
  #hasListened = false;
  /** A channel only this connection listens on (other processes never receive the heartbeats). */
  readonly #heartbeatChannel = `parley_heartbeat_${randomBytes(8).toString("hex")}`;
  #heartbeatTimer: NodeJS.Timeout | null = null;
  #heartbeatDeadline: NodeJS.Timeout | null = null;
  #heartbeatToken = "";
  #heartbeats = 0;

  constructor(options: ListenConnectionOptions) {
    this.#options = options;
  }

  /** Resolves once LISTEN is active (the first connection must succeed). */
  async start(): Promise<void> {
    await this.#connect();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#stopHeartbeat();
    if (this.#reconnectTimer) clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = null;
    const client = this.#client;
    this.#client = null;
    if (client) {
      await discardClient(client);
    }
  }

  /** The server process of the current connection (for `pg_terminate_backend` in tests), if any. */
  get processId(): number | null {
    return this.#client ? (this.#client as pg.Client & { processID: number | null }).processID : null;
  }

  /**
   * Stops reading the current connection without closing it, as a half-open TCP connection or a
   * stalled proxy would: only the heartbeat can notice (tests of dead-listener detection).
   */
  simulateSilentDeath(): void {
    (
      this.#client as (pg.Client & { connection?: { stream?: { pause(): void } } }) | null
    )?.connection?.stream?.pause();
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#options.url, keepAlive: true });
    client.on("notification", (message) => {
      if (message.channel === this.#options.channel) this.#options.onNotification(message.payload);
      else if (message.channel === this.#heartbeatChannel && message.payload === this.#heartbeatToken)
        this.#heartbeatHeard();
    });
    client.on("error", (error) => this.#lost(client, error));
    client.on("end", () => this.#lost(client, new Error("LISTEN connection ended")));
    try {
      await client.connect();
      await client.query(`LISTEN ${client.escapeIdentifier(this.#options.channel)}`);
      await client.query(`LISTEN ${client.escapeIdentifier(this.#heartbeatChannel)}`);
    } catch (error) {
      await discardClient(client);
      throw error;
    }
    if (this.#closed) {
      await discardClient(client);
      return;
    }
    this.#client = client;
    this.#attempt = 0;
    this.#startHeartbeat(client);
    const reconnected = this.#hasListened;
    this.#hasListened = true;
    this.#options.onListening(reconnected);
  }

  #lost(client: pg.Client, error: Error): void {
    if (this.#client !== client || this.#closed) return;
    this.#client = null;
    this.#stopHeartbeat();
    client.removeAllListeners("end");
    // A connection that stopped answering would hold a polite goodbye for its whole grace period.
    destroyClientSocket(client);
    void endClient(client);
    this.#options.logger?.warn(
      { err: error, channel: this.#options.channel },
      "LISTEN connection lost; reconnecting",
    );
    this.#scheduleReconnect();
  }

  #startHeartbeat(client: pg.Client): void {
    this.#stopHeartbeat();
    const interval = this.#options.heartbeatIntervalMs ?? 1_000;
    this.#heartbeatTimer = setInterval(() => this.#beat(client), interval);
    this.#heartbeatTimer.unref();
  }

  #beat(client: pg.Client): void {
    if (this.#heartbeatDeadline || this.#client !== client) return;
    this.#heartbeats += 1;
    this.#heartbeatToken = String(this.#heartbeats);
    this.#heartbeatDeadline = setTimeout(() => {
      this.#heartbeatDeadline = null;
      this.#lost(client, new Error("LISTEN connection missed its heartbeat"));
    }, this.#options.heartbeatTimeoutMs ?? 1_000);
    this.#heartbeatDeadline.unref();
    // Own notifications are delivered to the sending session too, after its transaction commits
    // (without waiting for its WAL flush, as every notice: see NOTIFY_STATEMENT).
    client
      .query(notifyQuery(this.#heartbeatChannel, [this.#heartbeatToken]))
      .catch((error: unknown) =>
        this.#lost(client, error instanceof Error ? error : new Error(String(error))),
      );
  }

  #heartbeatHeard(): void {
    if (this.#heartbeatDeadline) clearTimeout(this.#heartbeatDeadline);
    this.#heartbeatDeadline = null;
  }

  #stopHeartbeat(): void {
    if (this.#heartbeatTimer) clearInterval(this.#heartbeatTimer);
    if (this.#heartbeatDeadline) clearTimeout(this.#heartbeatDeadline);
    this.#heartbeatTimer = null;
    this.#heartbeatDeadline = null;
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#reconnectTimer) return;
    const delay = Math.min(50 * 2 ** this.#attempt, this.#options.maxReconnectDelayMs ?? 2_000);
    this.#attempt += 1;
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = null;
      this.#connect().catch((error: unknown) => {
        this.#options.logger?.warn(
          { err: error, channel: this.#options.channel },
          "LISTEN reconnection failed",
        );
        this.#scheduleReconnect();
      });
    }, delay);
  }
}
