export {
  type AuthenticatedToken,
  type AuthUser,
  hashToken,
  PrismaAuthStore,
  TOKEN_PREFIX,
  type UserRole,
} from "./auth/prisma-auth-store.js";
export { type CreateDatabaseOptions, createDatabase, type ParleyDatabase } from "./create-database.js";
export { quoteIdentifier, withDatabaseName } from "./database-url.js";
export {
  type EmbeddedPostgresOptions,
  type EmbeddedPostgresServer,
  freePort,
  startEmbeddedPostgres,
} from "./embedded-postgres.js";
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
export { createPrismaClient, TRANSACTION_OPTIONS } from "./prisma-client.js";
export { type ResolvedDatabase, resolveDatabaseUrl } from "./resolve-database-url.js";
export { PrismaSessionStore } from "./session-store/prisma-session-store.js";
