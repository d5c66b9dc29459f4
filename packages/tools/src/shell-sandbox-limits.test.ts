import { mkdir, readdir, readFile, rm, rmdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { findPidsCgroupParent } from "./pids-cgroup.js";
import { DEFAULT_SHELL_LIMITS, runShellCommand, type ShellResourceLimits } from "./run-shell-command.js";
import type { ShellSandbox } from "./shell-sandbox.js";
import { createTempWorkspace } from "./testing/recording-tool-context.js";

/**
 * The sandbox's limits and protected paths, in real bwrap sandboxes (docs/security.md):
 * processes, `/tmp` size, the workspace's `.git/hooks`, `.git/config` and `.parley/`, and the
 * system files left out of the mounts.
 */
let base: string;
let root: string;
let pidsParent: string | null;

beforeAll(async () => {
  pidsParent = (await findPidsCgroupParent()).parent;
});

beforeEach(async () => {
  ({ base, root } = await createTempWorkspace());
  await mkdir(root, { recursive: true });
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

function run(command: string, options: { limits?: Partial<ShellResourceLimits>; timeout_ms?: number } = {}) {
  const sandbox: ShellSandbox = { kind: "bubblewrap", network: false, pids_cgroup_parent: pidsParent };
  return runShellCommand({
    command,
    workspace_root: root,
    cwd: root,
    timeout_ms: options.timeout_ms ?? 30_000,
    max_output_bytes: 64 * 1024,
    abort_signal: new AbortController().signal,
    sandbox,
    limits: { ...DEFAULT_SHELL_LIMITS, ...options.limits },
  });
}

/**
 * A fork bomb beside a shell that goes on. The shell forks its `sleep` before the bomb and then
 * only runs builtins (`wait`, `echo`): `/bin/sh` (dash) exits when a fork fails, so a fork of its
 * own while the bomb fills the pids limit would end it (seen in CI: exit 2, no output).
 */
const FORK_BOMB_THEN_GO_ON = "sleep 2 & s=$!; bomb() { bomb | bomb & }; bomb & wait $s; echo still-here";

describe("the pids limit", () => {
  it("finds a pids cgroup here (root is exempt from RLIMIT_NPROC, so a root server needs one)", () => {
    if (process.getuid?.() === 0) expect(pidsParent).not.toBeNull();
  });

  it("holds the whole sandbox to its process count: forks beyond it fail", async () => {
    // dash stops at the first fork that fails; `count` holds how many sleeps were started before.
    const result = await run("n=0; for i in $(seq 1 120); do sleep 30 & n=$((n+1)); echo $n > count; done", {
      limits: { processes: 40 },
    });
    expect(result.stderr).toMatch(/Cannot fork/);
    const started = Number(await readFile(path.join(root, "count"), "utf8"));
    // bwrap and sh count too: fewer than 40 sleeps, far fewer than the 120 asked for.
    expect(started).toBeGreaterThan(30);
    expect(started).toBeLessThan(40);
  });

  it("contains a fork bomb: the shell goes on, and the command's cgroup is removed after it", async () => {
    const before = pidsParent === null ? [] : await commandCgroups(pidsParent);
    const result = await run(FORK_BOMB_THEN_GO_ON);
    expect(result.stdout, JSON.stringify(result)).toBe("still-here\n");
    expect(result.stderr).toMatch(/Cannot fork/);
    if (pidsParent !== null) expect(await commandCgroups(pidsParent)).toEqual(before);
    const after = await run("echo alive");
    expect(after.stdout).toBe("alive\n");
  });
});

describe("command cgroups left behind", () => {
  it("are removed at startup when their server is gone, and kept while it lives", async () => {
    if (pidsParent === null) return;
    const dead = path.join(pidsParent, "parley-shell-2147483646-left-by-a-killed-server");
    const live = path.join(pidsParent, `parley-shell-${process.pid}-still-running`);
    await mkdir(dead);
    await mkdir(live);
    try {
      expect((await findPidsCgroupParent()).parent).toBe(pidsParent);
      const entries = await readdir(pidsParent);
      expect(entries).toContain(path.basename(live));
      expect(entries).not.toContain(path.basename(dead));
    } finally {
      await rmdir(live).catch(() => undefined);
      await rmdir(dead).catch(() => undefined);
    }
  });
});

/** This process's command cgroups (other processes on the machine may run sandboxes too). */
async function commandCgroups(parent: string): Promise<string[]> {
  return (await readdir(parent)).filter((entry) => entry.startsWith(`parley-shell-${process.pid}-`)).sort();
}

describe("the private /tmp", () => {
  it("is a sized tmpfs: writing 2 GB fails with no space left", async () => {
    const result = await run(
      "df -B1 --output=size /tmp | tail -n 1; dd if=/dev/zero of=/tmp/big bs=1M count=2048 2>&1 | head -n 1; rm -f /tmp/big",
    );
    const [size, failure] = result.stdout.trim().split("\n");
    expect(Number(size?.trim())).toBe(DEFAULT_SHELL_LIMITS.tmp_bytes);
    expect(failure).toMatch(/No space left on device/);
  });
});

describe("the workspace's repository and .parley/", () => {
  beforeEach(async () => {
    await mkdir(path.join(root, ".git", "hooks"), { recursive: true });
    await writeFile(path.join(root, ".git", "config"), "[core]\n");
    await mkdir(path.join(root, ".parley"));
    await writeFile(path.join(root, ".parley", "credentials"), "db-password-17");
  });

  it("keeps .git/hooks and .git/config read-only and .parley/ empty and read-only", async () => {
    const result = await run(
      [
        "echo 'rm -rf ~' > .git/hooks/pre-commit || echo hooks-refused",
        "printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' >> .git/config || echo config-refused",
        "ls -A .parley; cat .parley/credentials || echo parley-absent",
        "touch .parley/planted || echo parley-refused",
        "echo ok > .git/description && echo rest-of-git-writable",
        "echo ok > file.txt && echo workspace-writable",
        // bwrap closed the descriptors it bound: none of the command's own reaches .git.
        "echo git-descriptors-$(readlink /proc/$$/fd/* | grep -c '\\.git')",
      ].join("; "),
    );
    expect(result.stdout.trim().split("\n")).toEqual([
      "hooks-refused",
      "config-refused",
      "parley-absent",
      "parley-refused",
      "rest-of-git-writable",
      "workspace-writable",
      "git-descriptors-0",
    ]);
    expect(result.stdout + result.stderr).not.toContain("db-password-17");
    expect(await readdir(path.join(root, ".git", "hooks"))).toEqual([]);
    expect(await readFile(path.join(root, ".git", "config"), "utf8")).toBe("[core]\n");
    expect(await readdir(path.join(root, ".parley"))).toEqual(["credentials"]);
  });

  it("gives an existing .git without hooks an empty, read-only hooks directory", async () => {
    await rm(path.join(root, ".git", "hooks"), { recursive: true });
    const result = await run("mkdir -p .git/hooks; echo x > .git/hooks/post-checkout || echo hooks-refused");
    expect(result.stdout).toBe("hooks-refused\n");
    expect(await readdir(path.join(root, ".git", "hooks"))).toEqual([]);
  });

  it("refuses to run when .git/hooks was swapped for a symbolic link (it would expose its target)", async () => {
    await rm(path.join(root, ".git", "hooks"), { recursive: true });
    await symlink("/etc", path.join(root, ".git", "hooks"));
    await expect(run("cat /etc/shadow")).rejects.toThrow(/symbolic link/);
  });
});

describe("system files left out of the sandbox", () => {
  it("has no /etc/ssl/private, /usr/local/etc, /usr/src or /usr/include, and still runs git, perl and awk", async () => {
    const result = await run(
      [
        "ls /etc/ssl/private 2>/dev/null || echo no-private-keys",
        "ls /usr/local/etc 2>/dev/null || echo no-local-etc",
        "ls /usr/src 2>/dev/null || echo no-src",
        "ls /usr/include 2>/dev/null || echo no-include",
        "test -d /etc/ssl/certs && echo certs",
        "git init -q repo && echo git-ok",
        "perl -e 'print qq(perl-ok\\n)'",
        "echo awk-ok | awk '{ print $1 }'",
      ].join("; "),
    );
    expect(result.stdout.trim().split("\n")).toEqual([
      "no-private-keys",
      "no-local-etc",
      "no-src",
      "no-include",
      "certs",
      "git-ok",
      "perl-ok",
      "awk-ok",
    ]);
  });
});
