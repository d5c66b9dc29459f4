import type { RuntimeLogger } from "@parley/session-core";
import type pg from "pg";
import { NatsEventBus } from "./nats-event-bus.js";
import type { NoticeEventBus } from "./notice-event-bus.js";
import { PostgresEventBus } from "./postgres-event-bus.js";

/** Whether `PARLEY_BUS` names a NATS server (`nats://…`, several comma-separated for a cluster). */
export function isNatsBusUrl(bus_url: string): boolean {
  return bus_url.split(",").every((server) => /^nats:\/\/[^\s/]+$/.test(server.trim()));
}

/**
 * The bus `PARLEY_BUS` selects (docs/behaviour.md#subscriptions): unset → LISTEN/NOTIFY on the database (the
 * zero-setup default), `nats://host:port` → NATS. Not started yet (`start()` connects).
 */
export function createEventBus(options: {
  bus_url: string | undefined;
  pool: pg.Pool;
  database_url: string;
  logger?: Pick<RuntimeLogger, "warn" | "error"> | undefined;
}): NoticeEventBus {
  const { bus_url, pool, logger } = options;
  const common = { pool, ...(logger ? { logger } : {}) };
  if (bus_url === undefined) return new PostgresEventBus({ ...common, url: options.database_url });
  if (!isNatsBusUrl(bus_url)) {
    throw new Error(`PARLEY_BUS must be unset (Postgres NOTIFY) or nats://host:port, not ${bus_url}`);
  }
  return new NatsEventBus({ ...common, url: bus_url });
}
