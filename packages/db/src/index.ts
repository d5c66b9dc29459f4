export { quoteIdentifier, withDatabaseName } from "./database-url.js";
export {
  type EmbeddedPostgresOptions,
  type EmbeddedPostgresServer,
  startEmbeddedPostgres,
} from "./embedded-postgres.js";
export {
  DEFAULT_MIGRATIONS_DIR,
  type MigrateResult,
  type MigrationFile,
  migrateDatabase,
  readMigrations,
} from "./migrations/migrate-database.js";
export { createPrismaClient, TRANSACTION_OPTIONS } from "./prisma-client.js";
export { PrismaSessionStore } from "./session-store/prisma-session-store.js";
