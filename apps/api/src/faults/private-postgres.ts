import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A PostgreSQL cluster of our own, started from the machine's PostgreSQL binaries on a port we
 * choose. The fault suite restarts it under a running API (never the shared server on 5432), and the
 * bench uses it so that cluster-wide counters (`pg_current_wal_lsn()`, `pg_stat_statements`) see only
 * our own work.
 */
export interface PrivatePostgres {
  readonly port: number;
  readonly version: string;
  /** Connection URL for a database of this cluster (default `postgres`). */
  url(database?: string): string;
  /** Fast shutdown (`pg_ctl stop -m fast`): open connections are terminated. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops and starts the server again on the same data directory and port. */
  restart(): Promise<void>;
  /** Stops the server and deletes its data directory. */
  destroy(): Promise<void>;
}

export interface PrivatePostgresOptions {
  port: number;
  /** `-c name=value` server settings, e.g. `{ shared_preload_libraries: "pg_stat_statements" }`. */
  settings?: Record<string, string>;
}

/** The newest PostgreSQL server binaries on this machine, or null when there are none. */
export function findPostgresBinaries(): string | null {
  const debianRoot = "/usr/lib/postgresql";
  if (existsSync(debianRoot)) {
    const versions = readdirSync(debianRoot)
      .filter((name) => existsSync(join(debianRoot, name, "bin", "pg_ctl")))
      .sort((left, right) => Number(right) - Number(left));
    if (versions[0]) return join(debianRoot, versions[0], "bin");
  }
  try {
    const bindir = execFileSync("pg_config", ["--bindir"], { encoding: "utf8" }).trim();
    return existsSync(join(bindir, "pg_ctl")) ? bindir : null;
  } catch {
    return null;
  }
}

/** PostgreSQL refuses to run as root: when we are root, its processes run as user `postgres`. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  return { uid, gid };
}

export async function startPrivatePostgres(options: PrivatePostgresOptions): Promise<PrivatePostgres> {
  const bindir = findPostgresBinaries();
  if (!bindir)
    throw new Error("No PostgreSQL server binaries found (looked in /usr/lib/postgresql and pg_config)");
  const user = serverUser();
  const dataDir = mkdtempSync(join(tmpdir(), `parley-pg-${options.port}-`));
  if (user) chownSync(dataDir, user.uid, user.gid);

  const run = (binary: string, args: string[]): void => {
    const result = spawnSync(join(bindir, binary), args, {
      encoding: "utf8",
      cwd: dataDir,
      ...(user ?? {}),
    });
    if (result.status !== 0) {
      const log = existsSync(join(dataDir, "server.log"))
        ? readFileSync(join(dataDir, "server.log"), "utf8")
        : "";
      throw new Error(
        `${binary} ${args.join(" ")} failed: ${result.stderr}${result.stdout}\n${log.slice(-2000)}`,
      );
    }
  };

  run("initdb", ["-D", dataDir, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"]);
  const settings = { listen_addresses: "127.0.0.1", unix_socket_directories: dataDir, ...options.settings };
  const serverOptions = [
    `-p ${options.port}`,
    ...Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`),
  ].join(" ");

  const start = async (): Promise<void> => {
    run("pg_ctl", [
      "-D",
      dataDir,
      "-l",
      join(dataDir, "server.log"),
      "-o",
      serverOptions,
      "-w",
      "-t",
      "60",
      "start",
    ]);
  };
  const stop = async (): Promise<void> => {
    run("pg_ctl", ["-D", dataDir, "-m", "fast", "-w", "-t", "60", "stop"]);
  };
  await start();
  const version = execFileSync(join(bindir, "postgres"), ["--version"], { encoding: "utf8" }).trim();

  let destroyed = false;
  return {
    port: options.port,
    version,
    url: (database = "postgres") => `postgresql://postgres@127.0.0.1:${options.port}/${database}`,
    start,
    stop,
    restart: async () => {
      await stop();
      await start();
    },
    destroy: async () => {
      if (destroyed) return;
      destroyed = true;
      try {
        await stop();
      } catch {
        // already stopped
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
