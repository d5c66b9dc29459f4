import type { RuntimeLogger } from "@parley/session-core";
import type pg from "pg";
import type { BusTransport, TransportHandlers } from "./bus-transport.js";
import { ListenConnection } from "./listen-connection.js";
import { decodeNotifyPayload, encodeNotifyPayload, type NotifyPayload } from "./notify-payload.js";

export interface NotifyTransportOptions {
  /** Sends the NOTIFYs (after commit, never inside the write transaction). */
  pool: pg.Pool;
  /** For the dedicated LISTEN connection. */
  url: string;
  channel: string;
  logger?: Pick<RuntimeLogger, "warn" | "error"> | undefined;
  heartbeatIntervalMs?: number | undefined;
  heartbeatTimeoutMs?: number | undefined;
}

/** Notices over PostgreSQL LISTEN/NOTIFY on one channel of one database. */
export class NotifyTransport implements BusTransport {
  readonly #options: NotifyTransportOptions;
  #connection: ListenConnection | null = null;

  constructor(options: NotifyTransportOptions) {
    this.#options = options;
  }

  async start(handlers: TransportHandlers): Promise<void> {
    const { url, channel, logger, heartbeatIntervalMs, heartbeatTimeoutMs } = this.#options;
    this.#connection = new ListenConnection({
      url,
      channel,
      logger,
      heartbeatIntervalMs,
      heartbeatTimeoutMs,
      onNotification: (payload) => {
        const notice = decodeNotifyPayload(payload);
        if (notice) handlers.onNotice(notice);
      },
      onListening: (reconnected) => {
        if (reconnected) handlers.onReconnected();
      },
    });
    await this.#connection.start();
  }

  async send(notices: NotifyPayload[]): Promise<void> {
    try {
      await this.#options.pool.query("SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload", [
        this.#options.channel,
        notices.map(encodeNotifyPayload),
      ]);
    } catch (error) {
      // The events are committed; other processes read them at their next notice of the session.
      this.#options.logger?.error({ err: error }, "NOTIFY failed after commit");
    }
  }

  async close(): Promise<void> {
    await this.#connection?.close();
  }

  /** Ends the LISTEN connection's server process, as a crashed backend or a cut network would. */
  async simulateConnectionLoss(): Promise<void> {
    const pid = this.#connection?.processId;
    if (pid) await this.#options.pool.query("SELECT pg_terminate_backend($1)", [pid]);
  }

  /** The LISTEN connection stops reading without closing (only the heartbeat can tell). */
  simulateSilentDeath(): void {
    this.#connection?.simulateSilentDeath();
  }
}
