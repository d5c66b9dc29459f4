import type { RuntimeLogger } from "@parley/session-core";
import pg from "pg";
import { destroyClientSocket, endClient } from "../end-client.js";

export interface ListenConnectionOptions {
  url: string;
  channel: string;
  onNotification(payload: string | undefined): void;
  /** Called after every (re)connection once LISTEN is active: read what was missed meanwhile. */
  onListening(reconnected: boolean): void;
  logger?: Pick<RuntimeLogger, "warn" | "error">;
  /** Upper bound of the reconnection back-off in ms (default 2,000). */
  maxReconnectDelayMs?: number;
}

/**
 * A dedicated connection (never a pooled one: LISTEN is per connection) that keeps listening on one
 * channel. On error or end it reconnects with back-off and reports `onListening(true)`, because any
 * notification sent while it was away is gone.
 */
export class ListenConnection {
  readonly #options: ListenConnectionOptions;
  #client: pg.Client | null = null;
  #closed = false;
  #reconnectTimer: NodeJS.Timeout | null = null;
  #attempt = 0;
  #hasListened = false;

  constructor(options: ListenConnectionOptions) {
    this.#options = options;
  }

  /** Resolves once LISTEN is active (the first connection must succeed). */
  async start(): Promise<void> {
    await this.#connect();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#reconnectTimer) clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = null;
    const client = this.#client;
    this.#client = null;
    if (client) {
      client.removeAllListeners("end");
      await endClient(client);
    }
  }

  /** Drops the current connection as a network failure would (tests of the reconnection path). */
  simulateConnectionLoss(): void {
    if (this.#client) destroyClientSocket(this.#client);
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#options.url, keepAlive: true });
    client.on("notification", (message) => {
      if (message.channel === this.#options.channel) this.#options.onNotification(message.payload);
    });
    client.on("error", (error) => this.#lost(client, error));
    client.on("end", () => this.#lost(client, new Error("LISTEN connection ended")));
    try {
      await client.connect();
      await client.query(`LISTEN ${client.escapeIdentifier(this.#options.channel)}`);
    } catch (error) {
      client.removeAllListeners("end");
      await endClient(client);
      throw error;
    }
    if (this.#closed) {
      client.removeAllListeners("end");
      await endClient(client);
      return;
    }
    this.#client = client;
    this.#attempt = 0;
    const reconnected = this.#hasListened;
    this.#hasListened = true;
    this.#options.onListening(reconnected);
  }

  #lost(client: pg.Client, error: Error): void {
    if (this.#client !== client || this.#closed) return;
    this.#client = null;
    client.removeAllListeners("end");
    void endClient(client);
    this.#options.logger?.warn(
      { err: error, channel: this.#options.channel },
      "LISTEN connection lost; reconnecting",
    );
    this.#scheduleReconnect();
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
