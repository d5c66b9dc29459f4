import path from "node:path";
import pg from "pg";
import { quoteIdentifier, withDatabaseName } from "./database-url.js";
import { startEmbeddedPostgres } from "./embedded-postgres.js";

export interface ResolvedDatabase {
  /** The URL the app connects with (for the embedded server: the non-superuser app role). */
  url: string;
  /** True when an embedded server was started (or found running) for it. */
  embedded: boolean;
  /** Stops the embedded server this call started; nothing for an external server. */
  stop(): Promise<void>;
}

/** The embedded server's login for the app: no superuser, no CREATEDB/CREATEROLE; owns `parley`. */
export const APP_ROLE = "parley_app";
export const APP_DATABASE = "parley";

/**
 * The zero-setup default: `database_url` when given (the caller reads `DATABASE_URL`), else an
 * embedded PostgreSQL with its data under `<data_root>/postgres` (default `.parley/postgres`,
 * reused across restarts) and its generated passwords in `<data_root>/postgres.credentials.json`
 * (mode 0600). The app connects as `parley_app`, an ordinary role that owns the `parley` database
 * (so migrations still work) — never as the superuser.
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
  try {
    await prepareAppDatabase(server.url, server.credentials.app_password);
  } catch (error) {
    await server.stop();
    throw error;
  }
  const url = new URL(withDatabaseName(server.url, APP_DATABASE));
  url.username = APP_ROLE;
  url.password = server.credentials.app_password;
  return { url: url.toString(), embedded: true, stop: server.stop };
}

/**
 * As the superuser: the app role (its password kept in step with the credentials file), the
 * `parley` database owned by it, and — for a database made before the role existed — its tables,
 * views and free-standing sequences handed over to it. Idempotent; concurrent starts are fine.
 */
async function prepareAppDatabase(superuserUrl: string, appPassword: string): Promise<void> {
  const admin = new pg.Client({ connectionString: superuserUrl });
  await admin.connect();
  try {
    const role = quoteIdentifier(APP_ROLE);
    const password = admin.escapeLiteral(appPassword);
    await admin
      .query(`CREATE ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD ${password}`)
      .catch((error: { code?: string }) => {
        // 42710: it exists (an earlier start, or a concurrent one).
        if (error.code !== "42710") throw error;
      });
    await admin.query(`ALTER ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD ${password}`);
    const { rows } = await admin.query<{ owner: string }>(
      "SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = $1",
      [APP_DATABASE],
    );
    if (rows.length === 0) {
      await admin
        .query(`CREATE DATABASE ${quoteIdentifier(APP_DATABASE)} OWNER ${role}`)
        .catch((error: { code?: string }) => {
          // 42P04: another process starting at the same moment created it first.
          if (error.code !== "42P04") throw error;
        });
    } else if (rows[0]?.owner !== APP_ROLE) {
      await admin.query(`ALTER DATABASE ${quoteIdentifier(APP_DATABASE)} OWNER TO ${role}`);
    }
  } finally {
    await admin.end();
  }
  const inApp = new pg.Client({ connectionString: withDatabaseName(superuserUrl, APP_DATABASE) });
  await inApp.connect();
  try {
    await inApp.query(HAND_OVER_OBJECTS);
  } finally {
    await inApp.end();
  }
}

const HAND_OVER_OBJECTS = `
DO $$
DECLARE item record;
BEGIN
  FOR item IN
    SELECT c.relname, c.relkind
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public'
       AND pg_get_userbyid(c.relowner) <> '${APP_ROLE}'
       AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
       AND NOT (c.relkind = 'S' AND EXISTS (
         SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype IN ('a', 'i')))
  LOOP
    EXECUTE format('ALTER %s public.%I OWNER TO ${APP_ROLE}',
      CASE item.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW'
                        WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END,
      item.relname);
  END LOOP;
END $$`;
