import type pg from "pg";
import type { BusTransport, TransportWrapper } from "./bus-transport.js";
import { NatsTransport } from "./nats-transport.js";
import type { BusLogger } from "./notice-event-bus.js";
import { NoticeEventBus } from "./notice-event-bus.js";

export interface NatsEventBusOptions {
  /** For reading the announced rows. */
  pool: pg.Pool;
  /** `nats://host:port` (`PARLEY_BUS`). */
  url: string;
  /** First token of every subject (default `parley`); processes that share it hear each other. */
  prefix?: string;
  logger?: BusLogger;
  maxTrackedSessions?: number;
  pingIntervalMs?: number;
  /** Wraps the NATS transport (tests: `withBusFaults`). */
  wrapTransport?: TransportWrapper;
}

/**
 * `EventBus` over NATS core pub/sub (docs/deployment.md), for when one Postgres's NOTIFY is not enough
 * or sessions are spread over several Postgres nodes. Same id-only notices and delivery rules as the
 * NOTIFY bus (`NoticeEventBus`).
 */
export class NatsEventBus extends NoticeEventBus {
  constructor(options: NatsEventBusOptions) {
    const transport: BusTransport = new NatsTransport({
      url: options.url,
      prefix: options.prefix,
      logger: options.logger,
      pingIntervalMs: options.pingIntervalMs,
    });
    super({
      pool: options.pool,
      transport: options.wrapTransport ? options.wrapTransport(transport) : transport,
      logger: options.logger,
      maxTrackedSessions: options.maxTrackedSessions,
    });
  }
}
