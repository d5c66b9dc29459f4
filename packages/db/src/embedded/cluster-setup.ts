import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { access, chmod, chown, mkdir, readFile, stat, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { EmbeddedPostgresError } from "./embedded-postgres-error.js";
import { SYSTEM_ROOT } from "./postgres-binaries.js";
import { canTraverse, type PosixIdentity } from "./traversal.js";

/** Setting up an embedded cluster before its server starts: who runs it, where its data lives, initdb. */

export const SUPERUSER = "postgres";

export async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

const execFileAsync = promisify(execFile);

/** As root: the `postgres` system user (created if missing), since PostgreSQL refuses root. */
export async function postgresUser(): Promise<PosixIdentity | null> {
  if (process.getuid?.() !== 0) return null;
  const lookup = async (): Promise<PosixIdentity | null> => {
    try {
      const uid = Number((await execFileAsync("id", ["-u", SUPERUSER])).stdout.trim());
      const gid = Number((await execFileAsync("id", ["-g", SUPERUSER])).stdout.trim());
      return { uid, gid };
    } catch {
      return null;
    }
  };
  const found = await lookup();
  if (found !== null) return found;
  try {
    await execFileAsync("useradd", [
      "--system",
      "--user-group",
      "--no-create-home",
      "--shell",
      "/usr/sbin/nologin",
      SUPERUSER,
    ]);
  } catch (error) {
    throw new EmbeddedPostgresError(
      `running as root, and the system user "postgres" does not exist and could not be created (${firstLine(error)})`,
      "create it (useradd --system --user-group postgres) or run as an ordinary user",
    );
  }
  const created = await lookup();
  if (created === null) {
    throw new EmbeddedPostgresError(
      'the system user "postgres" was created but cannot be found',
      "check /etc/passwd",
    );
  }
  return created;
}

export function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (
    text
      .split("\n")
      .find((line) => line.trim() !== "")
      ?.trim() ?? "unknown error"
  );
}

/**
 * Where the data goes. Unprivileged: `dataDir`. As root it must be reachable by `postgres`: the
 * place chosen before (`<dataDir>.location`), an existing cluster in `dataDir`, `dataDir` if its
 * chain is traversable, else `/var/lib/parley/clusters/<hash of dataDir>/data` (remembered in
 * `<dataDir>.location` so later starts find it).
 */
export async function placeData(
  dataDir: string,
  runAs: PosixIdentity | null,
  ephemeral: boolean,
): Promise<string> {
  const parent = path.dirname(dataDir);
  await mkdir(parent, { recursive: true });
  if (runAs === null) return dataDir;
  const pointer = `${dataDir}.location`;
  if (await exists(pointer)) return (await readFile(pointer, "utf8")).trim();
  if (await exists(path.join(dataDir, "PG_VERSION"))) return dataDir;
  // `postgres` only needs to pass through the parent (e.g. `.parley/`), never to list it.
  const mode = (await stat(parent)).mode & 0o7777;
  if ((mode & 0o001) === 0) await chmod(parent, mode | 0o001);
  if (await canTraverse(runAs, parent)) return dataDir;
  const key = createHash("sha256").update(path.resolve(dataDir)).digest("hex").slice(0, 16);
  const cluster = path.join(SYSTEM_ROOT, "clusters", key);
  await mkdir(cluster, { recursive: true, mode: 0o755 });
  await chmod(SYSTEM_ROOT, 0o755);
  await chmod(path.join(SYSTEM_ROOT, "clusters"), 0o755);
  await chmod(cluster, 0o755);
  const relocated = path.join(cluster, "data");
  if (!ephemeral) await writeFile(pointer, `${relocated}\n`, { mode: 0o600 });
  return relocated;
}

export function spawnAs(
  command: string,
  args: string[],
  runAs: PosixIdentity | null,
  cwd: string,
): ChildProcess {
  return spawn(command, args, {
    cwd,
    ...(runAs ?? {}),
    // The server needs nothing of ours: no secrets, no DATABASE_URL.
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C", LC_ALL: "C" },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

export async function initialise(options: {
  initdb: string;
  dataDir: string;
  password: string;
  runAs: PosixIdentity | null;
  log: (line: string) => void;
}): Promise<void> {
  const { dataDir, runAs } = options;
  const parent = path.dirname(dataDir);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const pwfile = path.join(parent, `.pwfile-${randomBytes(6).toString("hex")}`);
  await writeFile(pwfile, `${options.password}\n`, { mode: 0o600 });
  try {
    if (runAs !== null) {
      await chown(dataDir, runAs.uid, runAs.gid);
      await chown(pwfile, runAs.uid, runAs.gid);
    }
    const child = spawnAs(
      options.initdb,
      [
        `--pgdata=${dataDir}`,
        "--auth=scram-sha-256",
        `--username=${SUPERUSER}`,
        `--pwfile=${pwfile}`,
        "--encoding=UTF8",
        "--no-locale",
      ],
      runAs,
      parent,
    );
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => options.log(chunk.toString("utf8")));
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
      options.log(chunk.toString("utf8"));
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", resolve);
    }).catch((error: unknown) => {
      throw new EmbeddedPostgresError(
        `could not run initdb (${firstLine(error)})`,
        "reinstall dependencies (npm ci) or set DATABASE_URL to an existing PostgreSQL",
      );
    });
    if (code !== 0) {
      const reason =
        stderr
          .split("\n")
          .filter((line) => line.trim() !== "")
          .at(-1) ?? `exit code ${code}`;
      throw new EmbeddedPostgresError(
        `initdb failed for ${dataDir}: ${reason.trim()}`,
        `remove ${dataDir} if it holds nothing you need, or set DATABASE_URL to an existing PostgreSQL`,
      );
    }
  } finally {
    await unlink(pwfile).catch(() => undefined);
  }
}
