import type { RuntimeLogger } from "@parley/session-core";
import type pg from "pg";
import type { BusTransport, TransportHandlers } from "./bus-transport.js";
import { ListenConnection } from "./listen-connection.js";
import { decodeNotifyPayload, encodeNotifyPayload, type NotifyPayload } from "./notify-payload.js";
import { notifyQuery } from "./notify-statement.js";

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

/** PostgreSQL refuses a NOTIFY payload of 8,000 bytes or more. */
export const NOTIFY_PAYLOAD_LIMIT_BYTES = 7_999;

/** Notices over PostgreSQL LISTEN/NOTIFY on one channel of one database. */
export class NotifyTransport implements BusTransport {
  readonly maxNoticeBytes = NOTIFY_PAYLOAD_LIMIT_BYTES;
  readonly #options: NotifyTransportOptions;
  #connection: ListenConnection | null = null;
  /** Notices waiting for the NOTIFY statement in flight (see `send`). */
  readonly #queued: NotifyPayload[] = [];
  #sending: Promise<void> | null = null;

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

  /**
   * One NOTIFY statement at a time: notices handed over while one is in flight go out together in
   * the next (in the order given). Under load that is one statement, one round trip and one
   * transaction id for many revisions instead of one each; alone, a notice leaves at once.
   */
  send(notices: NotifyPayload[]): Promise<void> {
    this.#queued.push(...notices);
    this.#sending ??= this.#drain().finally(() => {
      this.#sending = null;
    });
    return this.#sending;
  }

  async #drain(): Promise<void> {
    while (this.#queued.length > 0) {
      const batch = this.#queued.splice(0);
      try {
        await this.#options.pool.query(notifyQuery(this.#options.channel, batch.map(encodeNotifyPayload)));
      } catch (error) {
        // The events are committed; other processes read them at their next notice of the session.
        this.#options.logger?.error({ err: error }, "NOTIFY failed after commit");
      }
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
