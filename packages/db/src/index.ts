export { hashToken, PrismaAuthStore, TOKEN_PREFIX } from "./auth/prisma-auth-store.js";
export { type CreateDatabaseOptions, createDatabase, type ParleyDatabase } from "./create-database.js";
export { quoteIdentifier, withDatabaseName } from "./database-url.js";
export { freePort, freePorts } from "./embedded/free-ports.js";
export {
  type EmbeddedPostgresOptions,
  type EmbeddedPostgresServer,
  startEmbeddedPostgres,
} from "./embedded-postgres.js";
export {
  type BusTransport,
  BusUnreachableError,
  type TransportHandlers,
} from "./event-bus/bus-transport.js";
export { createEventBus, isNatsBusUrl } from "./event-bus/create-event-bus.js";
export { NatsEventBus, type NatsEventBusOptions } from "./event-bus/nats-event-bus.js";
export { NoticeEventBus, type NoticeEventBusOptions } from "./event-bus/notice-event-bus.js";
export type { NotifyPayload } from "./event-bus/notify-payload.js";
export { NOTIFY_STATEMENT } from "./event-bus/notify-statement.js";
export { PostgresEventBus, type PostgresEventBusOptions } from "./event-bus/postgres-event-bus.js";
export {
  PostgresTurnLeaseManager,
  type PostgresTurnLeaseManagerOptions,
} from "./leases/postgres-turn-lease-manager.js";
export {
  DEFAULT_MIGRATIONS_DIR,
  type MigrateResult,
  type MigrationFile,
  migrateDatabase,
  readMigrations,
} from "./migrations/migrate-database.js";
export { type PendingByType, PrismaOperatorStats, type TurnCounts } from "./operator-stats.js";
export { defaultPoolSize } from "./pool-size.js";
export { createPrismaClient } from "./prisma-client.js";
export { type MemberUsage, PostgresMemberUsage } from "./quotas/member-usage.js";
export { type ResolvedDatabase, resolveDatabaseUrl } from "./resolve-database-url.js";
export type { CommitObserver } from "./session-store/commit-observer.js";
export { PrismaInboxReader } from "./session-store/prisma-inbox-reader.js";
export { PrismaSessionStore } from "./session-store/prisma-session-store.js";
export {
  PostgresSessionListStates,
  type SessionListState,
} from "./session-store/session-list-states.js";
