import type pg from "pg";
import type { TransportWrapper } from "./bus-transport.js";
import type { BusLogger } from "./notice-event-bus.js";
import { NoticeEventBus } from "./notice-event-bus.js";
import { NotifyTransport } from "./notify-transport.js";

export interface PostgresEventBusOptions {
  /** For NOTIFY and for reading the announced rows. */
  pool: pg.Pool;
  /** For the dedicated LISTEN connection. */
  url: string;
  channel?: string;
  logger?: BusLogger;
  /** How many sessions' delivery positions are remembered (least recently used are forgotten). */
  maxTrackedSessions?: number;
  /** LISTEN liveness check period and deadline in ms (defaults 1,000 and 1,000). */
  heartbeatIntervalMs?: number;
  heartbeatTimeoutMs?: number;
  /** Wraps the NOTIFY transport (tests: `withBusFaults`). */
  wrapTransport?: TransportWrapper;
}

/**
 * `EventBus` over PostgreSQL LISTEN/NOTIFY (the zero-setup default, docs/deployment.md): a mutation
 * committed by one process reaches subscribers in every process connected to the same database.
 * NOTIFY is sent after commit, never inside the write transaction. Delivery rules: `NoticeEventBus`.
 */
export class PostgresEventBus extends NoticeEventBus {
  readonly #transport: NotifyTransport;

  constructor(options: PostgresEventBusOptions) {
    const transport = new NotifyTransport({
      pool: options.pool,
      url: options.url,
      channel: options.channel ?? "parley_events",
      logger: options.logger,
      heartbeatIntervalMs: options.heartbeatIntervalMs,
      heartbeatTimeoutMs: options.heartbeatTimeoutMs,
    });
    super({
      pool: options.pool,
      transport: options.wrapTransport ? options.wrapTransport(transport) : transport,
      logger: options.logger,
      maxTrackedSessions: options.maxTrackedSessions,
    });
    this.#transport = transport;
  }

  /** The LISTEN connection stops reading without closing; the heartbeat must replace it. */
  simulateSilentDeath(): void {
    this.#transport.simulateSilentDeath();
  }
}
