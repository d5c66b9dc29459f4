import { execFile } from "node:child_process";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { findPidsCgroupParent } from "./pids-cgroup.js";
import { DEFAULT_SHELL_LIMITS } from "./run-shell-command.js";
import {
  bubblewrapArguments,
  locateBubblewrap,
  type ShellSandbox,
  sandboxEnvironment,
} from "./shell-sandbox.js";

/** The operator's settings that decide how (and whether) the `shell` tool runs. */
export interface ShellSandboxSettings {
  /** `off`: run commands unsandboxed (explicit opt-out for trusted single-user setups). */
  PARLEY_SANDBOX: "on" | "off";
  /** `on`: the sandbox shares the server's network. */
  PARLEY_SHELL_NETWORK: "on" | "off";
  /** Where to look for `bwrap`. */
  PATH?: string | undefined;
}

/**
 * What startup decided: the sandbox to give the `shell` tool, or null when the tool must not be
 * offered; `message` is the one line the server logs about it either way.
 */
export interface ShellSandboxChoice {
  sandbox: ShellSandbox | null;
  level: "info" | "warn";
  message: string;
}

const HOW_TO_FIX =
  "install the bubblewrap package (Debian/Ubuntu: apt-get install bubblewrap), or set PARLEY_SANDBOX=off for a trusted single-user setup";

/**
 * Decides at startup how `shell` runs: finds `bwrap` and proves it can build the sandbox here (a
 * container without user namespaces, for example, cannot), so that a tool that could never run is
 * not offered to the model.
 */
export async function chooseShellSandbox(settings: ShellSandboxSettings): Promise<ShellSandboxChoice> {
  if (settings.PARLEY_SANDBOX === "off") {
    return {
      sandbox: { kind: "unsandboxed" },
      level: "warn",
      message:
        "shell tool runs UNSANDBOXED (PARLEY_SANDBOX=off): an approved command can read everything the server's user can",
    };
  }
  const bwrap_path = locateBubblewrap(settings.PATH);
  if (bwrap_path === null) {
    return {
      sandbox: null,
      level: "warn",
      message: `shell tool disabled: bubblewrap (bwrap) not found; ${HOW_TO_FIX}`,
    };
  }
  const network = settings.PARLEY_SHELL_NETWORK === "on";
  const failure = await probeBubblewrap(bwrap_path, network);
  if (failure !== null) {
    return {
      sandbox: null,
      level: "warn",
      message: `shell tool disabled: ${bwrap_path} cannot build the sandbox here (${failure}); ${HOW_TO_FIX}`,
    };
  }
  const pids = await findPidsCgroupParent();
  // Root is exempt from RLIMIT_NPROC: without a cgroup, nothing stops a fork bomb of a root server.
  const unlimited = pids.parent === null && process.getuid?.() === 0;
  const pidsLimit =
    pids.parent !== null
      ? `pids limit: ${pids.reason}`
      : unlimited
        ? `NO pids limit: ${pids.reason}, and RLIMIT_NPROC does not apply to root`
        : "pids limit: RLIMIT_NPROC";
  return {
    sandbox: { kind: "bubblewrap", bwrap_path, network, pids_cgroup_parent: pids.parent },
    level: unlimited ? "warn" : "info",
    message: `shell tool sandboxed with ${bwrap_path} (network ${network ? "on" : "off"}; ${pidsLimit})`,
  };
}

/** Runs `true` in the sandbox a command would get; the reason it failed, or null. */
async function probeBubblewrap(bwrap_path: string, network: boolean): Promise<string | null> {
  const workspace = await realpath(await mkdtemp(path.join(tmpdir(), "parley-sandbox-probe-")));
  try {
    const args = [
      ...bubblewrapArguments({
        workspace_root: workspace,
        cwd: workspace,
        network,
        tmp_bytes: DEFAULT_SHELL_LIMITS.tmp_bytes,
      }),
      "/bin/true",
    ];
    return await new Promise<string | null>((resolve) => {
      execFile(
        bwrap_path,
        args,
        { env: sandboxEnvironment(workspace), timeout: 30_000 },
        (error, _stdout, stderr) => {
          if (error === null) resolve(null);
          else resolve(firstLine(stderr) ?? error.message);
        },
      );
    });
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}

function firstLine(text: string): string | undefined {
  const line = text.split("\n").find((candidate) => candidate.trim() !== "");
  return line?.trim();
}
