import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chooseShellSandbox } from "./choose-shell-sandbox.js";
import { findPidsCgroupParent } from "./pids-cgroup.js";
import { locateBubblewrap } from "./shell-sandbox.js";

let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "parley-choose-sandbox-"));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe("chooseShellSandbox", () => {
  it("sandboxes with the bwrap on PATH, network off unless asked", async () => {
    const bwrap = locateBubblewrap(process.env.PATH);
    if (bwrap === null) throw new Error("these tests need bubblewrap installed (.ci/run installs it)");
    // Root (CI, these machines) has a writable pids cgroup; a user without one relies on RLIMIT_NPROC.
    const { parent } = await findPidsCgroupParent();
    if (parent === null && process.getuid?.() === 0) throw new Error("root here should have a pids cgroup");
    const pidsLimit = parent === null ? "RLIMIT_NPROC" : `pids cgroup under ${parent}`;
    await expect(
      chooseShellSandbox({ PARLEY_SANDBOX: "on", PARLEY_SHELL_NETWORK: "off", PATH: process.env.PATH }),
    ).resolves.toEqual({
      sandbox: { kind: "bubblewrap", bwrap_path: bwrap, network: false, pids_cgroup_parent: parent },
      level: "info",
      message: `shell tool sandboxed with ${bwrap} (network off; pids limit: ${pidsLimit})`,
    });
    const networked = await chooseShellSandbox({
      PARLEY_SANDBOX: "on",
      PARLEY_SHELL_NETWORK: "on",
      PATH: process.env.PATH,
    });
    expect(networked.sandbox).toEqual({
      kind: "bubblewrap",
      bwrap_path: bwrap,
      network: true,
      pids_cgroup_parent: parent,
    });
  });

  it("offers no shell when bwrap is missing, and says why in one line", async () => {
    const choice = await chooseShellSandbox({
      PARLEY_SANDBOX: "on",
      PARLEY_SHELL_NETWORK: "off",
      PATH: directory,
    });
    expect(choice.sandbox).toBeNull();
    expect(choice.level).toBe("warn");
    expect(choice.message).toBe(
      "shell tool disabled: bubblewrap (bwrap) not found; install the bubblewrap package (Debian/Ubuntu: apt-get install bubblewrap), or set PARLEY_SANDBOX=off for a trusted single-user setup",
    );
  });

  it("offers no shell when bwrap cannot build the sandbox (no user namespaces, say)", async () => {
    // A bwrap that fails as it does in a container without user namespaces.
    const fake = path.join(directory, "bwrap");
    await writeFile(fake, "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n");
    await chmod(fake, 0o755);
    const choice = await chooseShellSandbox({
      PARLEY_SANDBOX: "on",
      PARLEY_SHELL_NETWORK: "off",
      PATH: directory,
    });
    expect(choice.sandbox).toBeNull();
    expect(choice.message).toBe(
      `shell tool disabled: ${fake} cannot build the sandbox here (bwrap: No permissions to creating new namespace); install the bubblewrap package (Debian/Ubuntu: apt-get install bubblewrap), or set PARLEY_SANDBOX=off for a trusted single-user setup`,
    );
  });

  it("runs unsandboxed only on the explicit PARLEY_SANDBOX=off, with a warning", async () => {
    const choice = await chooseShellSandbox({
      PARLEY_SANDBOX: "off",
      PARLEY_SHELL_NETWORK: "off",
      PATH: directory,
    });
    expect(choice).toEqual({
      sandbox: { kind: "unsandboxed" },
      level: "warn",
      message:
        "shell tool runs UNSANDBOXED (PARLEY_SANDBOX=off): an approved command can read everything the server's user can",
    });
  });
});
