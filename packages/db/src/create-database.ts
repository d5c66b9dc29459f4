import type { Clock, RuntimeLogger } from "@parley/session-core";
import type { PrismaClient } from "@prisma/client";
import pg from "pg";
import { PrismaAuthStore } from "./auth/prisma-auth-store.js";
import { createEventBus } from "./event-bus/create-event-bus.js";
import type { NoticeEventBus } from "./event-bus/notice-event-bus.js";
import { PostgresTurnLeaseManager } from "./leases/postgres-turn-lease-manager.js";
import { migrateDatabase } from "./migrations/migrate-database.js";
import { PrismaOperatorStats } from "./operator-stats.js";
import { createPoolCloser } from "./pool-closer.js";
import { defaultPoolSize } from "./pool-size.js";
import { createPrismaClient } from "./prisma-client.js";
import type { CommitObserver } from "./session-store/commit-observer.js";
import { PrismaInboxReader } from "./session-store/prisma-inbox-reader.js";
import { PrismaSessionStore } from "./session-store/prisma-session-store.js";

export interface CreateDatabaseOptions {
  url: string;
  logger?: RuntimeLogger;
  clock?: Clock;
  /** Apply pending migrations first (default true; safe with several instances starting at once). */
  migrate?: boolean;
  /** Connections in the shared pool (default `defaultPoolSize()`). LISTEN and the lease locks use one more each. */
  pool_size?: number;
  /** Told about every committed revision (operators' metrics). */
  commit_observer?: CommitObserver;
  /**
   * Connections of the separate pool for token lookups and `ping()` (default 2): requests with bad
   * tokens and `/healthz` queue there and never take a connection from the pool commits use.
   */
  auth_pool_size?: number;
  /**
   * Names this process as a lease holder: its lock connection's `application_name` is
   * `parley-turn-leases:<holder_id>` (default `<host>:<pid>:<random>`).
   */
  holder_id?: string;
  /** `PARLEY_BUS`: unset → LISTEN/NOTIFY on this database; `nats://host:port` → NATS. */
  bus_url?: string | undefined;
}

/** Everything session-core and the API need from PostgreSQL, over one pool. */
export interface ParleyDatabase {
  store: PrismaSessionStore;
  /** The admin inbox page joined with sessions and users (one statement). */
  inbox: PrismaInboxReader;
  /** Pending interactions and open Turns over the whole database, for `/metrics`. */
  stats: PrismaOperatorStats;
  bus: NoticeEventBus;
  leases: PostgresTurnLeaseManager;
  auth: PrismaAuthStore;
  prisma: PrismaClient;
  pool: pg.Pool;
  /** Answers whether the database is reachable (for `/healthz`); runs on the auth pool. */
  ping(): Promise<boolean>;
  /**
   * Stops listening, drops the leases (the locks go with their connection), ends every connection.
   * Bounded: in-flight queries get a few seconds, then their connections are dropped. Idempotent.
   */
  close(): Promise<void>;
}

export async function createDatabase(options: CreateDatabaseOptions): Promise<ParleyDatabase> {
  if (options.migrate ?? true) await migrateDatabase(options.url);
  const pool = new pg.Pool({ connectionString: options.url, max: options.pool_size ?? defaultPoolSize() });
  pool.on("error", (error) => options.logger?.warn({ err: error }, "idle database connection failed"));
  const endPool = createPoolCloser(pool);
  const authPool = new pg.Pool({
    connectionString: options.url,
    max: options.auth_pool_size ?? 2,
    connectionTimeoutMillis: 10_000,
  });
  authPool.on("error", (error) => options.logger?.warn({ err: error }, "idle auth connection failed"));
  const endAuthPool = createPoolCloser(authPool);
  const prisma = createPrismaClient(pool);
  const bus = createEventBus({
    bus_url: options.bus_url,
    pool,
    database_url: options.url,
    logger: options.logger,
  });
  // The locks get a dedicated connection (`url`); the leases' writes share the pool's group commits.
  const leases = new PostgresTurnLeaseManager({
    url: options.url,
    pool,
    logger: options.logger,
    ...(options.holder_id ? { holder_id: options.holder_id } : {}),
  });
  try {
    await bus.start();
  } catch (error) {
    await prisma.$disconnect();
    await endPool();
    await endAuthPool();
    throw error;
  }
  const clockOption = options.clock ? { clock: options.clock } : {};
  let closing: Promise<void> | null = null;
  return {
    store: new PrismaSessionStore(pool, {
      ...clockOption,
      ...(options.commit_observer ? { observer: options.commit_observer } : {}),
    }),
    inbox: new PrismaInboxReader(pool),
    stats: new PrismaOperatorStats(prisma),
    bus,
    leases,
    auth: new PrismaAuthStore(prisma, { lookup_pool: authPool, ...clockOption }),
    prisma,
    pool,
    async ping() {
      try {
        await authPool.query("SELECT 1");
        return true;
      } catch {
        return false;
      }
    },
    close() {
      closing ??= (async () => {
        await bus.close();
        await leases.close();
        await prisma.$disconnect();
        await endPool();
        await endAuthPool();
      })();
      return closing;
    },
  };
}
