import path from "node:path";
import pg from "pg";
import { quoteIdentifier, withDatabaseName } from "./database-url.js";
import { startEmbeddedPostgres } from "./embedded-postgres.js";

export interface ResolvedDatabase {
  url: string;
  /** True when an embedded server was started (or found running) for it. */
  embedded: boolean;
  /** Stops the embedded server this call started; nothing for an external server. */
  stop(): Promise<void>;
}

/**
 * The zero-setup default: `database_url` when given (the caller reads `DATABASE_URL`), else an
 * embedded PostgreSQL with its data under `<data_root>/postgres` (default `.parley/postgres`,
 * reused across restarts) and a `parley` database in it, created on first use.
 */
export async function resolveDatabaseUrl(options: {
  database_url?: string;
  data_root?: string;
  port?: number;
  onLog?: (line: string) => void;
}): Promise<ResolvedDatabase> {
  if (options.database_url) {
    return { url: options.database_url, embedded: false, stop: async () => undefined };
  }
  const server = await startEmbeddedPostgres({
    dataDir: path.join(options.data_root ?? ".parley", "postgres"),
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.onLog ? { onLog: options.onLog } : {}),
  });
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = 'parley'");
    if (rowCount === 0) {
      // 42P04: another process starting at the same moment created it first.
      await client.query(`CREATE DATABASE ${quoteIdentifier("parley")}`).catch((error: { code?: string }) => {
        if (error.code !== "42P04") throw error;
      });
    }
  } finally {
    await client.end();
  }
  return { url: withDatabaseName(server.url, "parley"), embedded: true, stop: server.stop };
}
