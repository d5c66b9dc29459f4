import { randomUUID } from "node:crypto";
import { constants } from "node:fs";
import { access, mkdir, readdir, readFile, rmdir, writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * The pids limit of a shell command. bwrap has no option for it, and RLIMIT_NPROC is never enforced
 * for uid 0 (the kernel exempts the root user, inside a user namespace too): a server running as root
 * needs a pids cgroup. Each command gets its own child cgroup with `pids.max`, under the cgroup the
 * server runs in (cgroup v1's `pids` hierarchy, or v2 when `pids` is enabled in its
 * `cgroup.subtree_control`). `findPidsCgroupParent` proves at startup that one can be made here.
 */

/** Where the server can make per-command pids cgroups, or null (with the reason) when it cannot. */
export async function findPidsCgroupParent(): Promise<{ parent: string | null; reason: string }> {
  let candidates: string[];
  try {
    candidates = await pidsCgroupCandidates();
  } catch (error) {
    return { parent: null, reason: `cannot read the process's cgroups: ${String(error)}` };
  }
  for (const candidate of candidates) {
    try {
      const probe = await createPidsCgroup(candidate, 1);
      await removePidsCgroup(probe);
      await removeStaleCgroups(candidate);
      return { parent: candidate, reason: `pids cgroup under ${candidate}` };
    } catch {
      // Not writable here (no delegation, read-only cgroupfs): try the next one.
    }
  }
  return { parent: null, reason: "no writable pids cgroup" };
}

const CGROUP_PREFIX = "parley-shell-";

/**
 * Removes the command cgroups left by servers that died while a command ran (a killed server
 * never removes its own): those named after a process that no longer exists. `rmdir` only removes
 * an empty cgroup, so one still holding processes stays whatever its name says.
 */
async function removeStaleCgroups(parent: string): Promise<void> {
  for (const entry of await readdir(parent)) {
    if (!entry.startsWith(CGROUP_PREFIX)) continue;
    const pid = Number(entry.slice(CGROUP_PREFIX.length).split("-")[0]);
    if (!Number.isSafeInteger(pid) || pid <= 0 || isAlive(pid)) continue;
    await rmdir(path.join(parent, entry)).catch(() => undefined);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/** Makes a child cgroup of `parent` that holds at most `max_processes` tasks; returns its directory. */
export async function createPidsCgroup(parent: string, max_processes: number): Promise<string> {
  const directory = path.join(parent, `${CGROUP_PREFIX}${process.pid}-${randomUUID()}`);
  await mkdir(directory);
  try {
    await writeFile(path.join(directory, "pids.max"), String(max_processes));
    return directory;
  } catch (error) {
    await rmdir(directory).catch(() => undefined);
    throw error;
  }
}

/**
 * Removes a command's cgroup. Its processes die with the sandbox's PID namespace, but the kernel
 * may still be reaping them: an `EBUSY` is retried briefly; a cgroup still busy after that is left
 * (empty, it costs a directory entry) rather than holding the tool's result.
 */
export async function removePidsCgroup(directory: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await rmdir(directory);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return;
      if (code !== "EBUSY" || attempt >= 40) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/**
 * A `/bin/sh` script that moves itself into the cgroup `$0` and then becomes the program in `$@`:
 * the sandbox and everything it starts are counted from their first fork.
 */
export const JOIN_CGROUP_SCRIPT = 'echo $$ > "$0/cgroup.procs" && exec "$@"';

/** The server's own pids cgroup directories (v1 first, then v2), as mounted here. */
async function pidsCgroupCandidates(): Promise<string[]> {
  const membership = await readFile("/proc/self/cgroup", "utf8");
  const mounts = await readFile("/proc/self/mountinfo", "utf8");
  const candidates: string[] = [];
  for (const line of membership.split("\n")) {
    const [, controllers, own] = line.split(":");
    if (controllers === undefined || own === undefined) continue;
    const v1 = controllers.split(",").includes("pids");
    const v2 = controllers === "" && line.startsWith("0::");
    if (!v1 && !v2) continue;
    for (const mount of parseMountinfo(mounts)) {
      const matches = v1
        ? mount.type === "cgroup" && mount.options.split(",").includes("pids")
        : mount.type === "cgroup2";
      if (!matches) continue;
      const relative = path.posix.relative(mount.root, own);
      if (relative.startsWith("..")) continue;
      const directory = path.join(mount.point, relative);
      if (v2 && !(await pidsEnabledForChildren(directory))) continue;
      candidates.push(directory);
    }
  }
  return candidates;
}

async function pidsEnabledForChildren(directory: string): Promise<boolean> {
  try {
    await access(directory, constants.W_OK);
    const enabled = await readFile(path.join(directory, "cgroup.subtree_control"), "utf8");
    return enabled.split(/\s+/).includes("pids");
  } catch {
    return false;
  }
}

/** The mount root, mount point, type and super options of each line of `/proc/self/mountinfo`. */
function parseMountinfo(text: string): { root: string; point: string; type: string; options: string }[] {
  const mounts = [];
  for (const line of text.split("\n")) {
    const [before, after] = line.split(" - ");
    if (before === undefined || after === undefined) continue;
    const fields = before.split(" ");
    const [type, , options] = after.split(" ");
    const root = fields[3];
    const point = fields[4];
    if (root === undefined || point === undefined || type === undefined || options === undefined) continue;
    mounts.push({ root: unescapeMountPath(root), point: unescapeMountPath(point), type, options });
  }
  return mounts;
}

/** mountinfo writes a space, tab, newline and backslash in a path as an octal escape. */
function unescapeMountPath(value: string): string {
  return value.replace(/\\([0-7]{3})/g, (_match, octal: string) =>
    String.fromCharCode(Number.parseInt(octal, 8)),
  );
}
