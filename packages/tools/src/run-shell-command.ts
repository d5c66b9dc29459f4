import { type ChildProcessByStdio, spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { decodeOutputBytes, replacementNote } from "./output-text.js";
import { createPidsCgroup, JOIN_CGROUP_SCRIPT, removePidsCgroup } from "./pids-cgroup.js";
import {
  bubblewrapArguments,
  locateBubblewrap,
  SHELL_LANG,
  type ShellSandbox,
  sandboxEnvironment,
} from "./shell-sandbox.js";
import { openProtectedWorkspacePaths } from "./workspace-protected-paths.js";

/** Per-process caps set with `ulimit` before the command starts (it cannot raise them again). */
export interface ShellResourceLimits {
  /** RLIMIT_CPU: CPU seconds per process. */
  cpu_seconds: number;
  /** RLIMIT_AS: address space per process, in bytes. */
  memory_bytes: number;
  /** RLIMIT_FSIZE: largest file a process may write, in bytes. */
  file_bytes: number;
  /**
   * Processes (and threads) of the whole command: the `pids.max` of its cgroup when the sandbox has
   * one, and RLIMIT_NPROC always (enforced by the kernel for a server that is not root).
   */
  processes: number;
  /** Size of the sandbox's private `/tmp` (memory-backed). */
  tmp_bytes: number;
}

export const DEFAULT_SHELL_LIMITS: ShellResourceLimits = {
  cpu_seconds: 120,
  memory_bytes: 4 * 1024 * 1024 * 1024,
  file_bytes: 1024 * 1024 * 1024,
  processes: 256,
  tmp_bytes: 512 * 1024 * 1024,
};

export interface ShellRunOptions {
  command: string;
  /** Real path of the session's workspace: the only writable path inside the sandbox. */
  workspace_root: string;
  /** Absolute, already confined working directory (inside `workspace_root`). */
  cwd: string;
  timeout_ms: number;
  /** Bytes kept of stdout and of stderr, each. */
  max_output_bytes: number;
  abort_signal: AbortSignal;
  sandbox: ShellSandbox;
  limits?: ShellResourceLimits;
}

export type ShellRunResult = {
  /** Null when the process was ended by a signal. */
  exit_code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timed_out: boolean;
  truncated: boolean;
  /** Present when NUL bytes or invalid UTF-8 in the output were replaced (see `decodeOutputBytes`). */
  note?: string;
};

/** The sandbox cannot be started (no `bwrap`); the command did not run. */
export class ShellSandboxUnavailableError extends Error {
  override readonly name = "ShellSandboxUnavailableError";
}

/**
 * Sets the caps, then runs the command: `$1`–`$4` are the limits, `$5` the command line. A limit
 * the server's own hard limit already keeps lower cannot be raised, and then stays lower. The
 * process count is `ulimit -u` in bash and `-p` in dash.
 */
const LIMITS_SCRIPT =
  'ulimit -t "$1" 2>/dev/null; ulimit -v "$2" 2>/dev/null; ulimit -f "$3" 2>/dev/null; ulimit -u "$4" 2>/dev/null || ulimit -p "$4" 2>/dev/null; shift 4; exec /bin/sh -c "$1"';

/** Thrown when the tool call was aborted (Turn stopped, session closed); the process group is killed. */
export class ShellAbortedError extends Error {
  override readonly name = "ShellAbortedError";
}

/** How long the pipes may stay open after the process exited (a background child holding them). */
const PIPE_DRAIN_GRACE_MS = 500;

/**
 * Runs `command` with `/bin/sh -c` under the resource caps, inside the sandbox, in its own process
 * group, so that the timeout and an abort kill the command together with every child it started
 * (in the sandbox, killing `bwrap` ends its PID namespace and so every process in it). Output
 * beyond the cap is dropped, not buffered, and is decoded so that any bytes can be stored.
 */
export async function runShellCommand(options: ShellRunOptions): Promise<ShellRunResult> {
  if (options.abort_signal.aborted) throw new ShellAbortedError("Shell command aborted");
  const launch = await launchOf(options);
  try {
    return await runLaunched(launch, options);
  } finally {
    await launch.release();
  }
}

/** What `spawn` runs, the descriptors it passes on (fd 3, 4…), and what to undo after it ended. */
interface Launch {
  file: string;
  args: string[];
  env: Record<string, string>;
  extra_fds: number[];
  release(): Promise<void>;
}

function runLaunched(launch: Launch, options: ShellRunOptions): Promise<ShellRunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(launch.file, launch.args, {
      cwd: options.cwd,
      env: launch.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe", ...launch.extra_fds],
      // The descriptors beyond stderr are passed on, not piped: stdout and stderr are the pipes.
    }) as ChildProcessByStdio<null, Readable, Readable>;
    const stdout = new CappedBuffer(options.max_output_bytes);
    const stderr = new CappedBuffer(options.max_output_bytes);
    child.stdout.on("data", (chunk: Buffer) => stdout.append(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.append(chunk));

    let timedOut = false;
    let aborted = false;
    let drainTimer: NodeJS.Timeout | undefined;
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // The group is already gone.
      }
    };
    const timeoutTimer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeout_ms);
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    options.abort_signal.addEventListener("abort", onAbort, { once: true });
    const cleanUp = () => {
      clearTimeout(timeoutTimer);
      if (drainTimer !== undefined) clearTimeout(drainTimer);
      options.abort_signal.removeEventListener("abort", onAbort);
    };

    child.on("error", (error) => {
      cleanUp();
      reject(error);
    });
    child.on("exit", () => {
      drainTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, PIPE_DRAIN_GRACE_MS);
    });
    child.on("close", (code, signal) => {
      cleanUp();
      if (aborted) {
        reject(new ShellAbortedError("Shell command aborted"));
        return;
      }
      const out = stdout.decode();
      const err = stderr.decode();
      const note = replacementNote([
        { name: "stdout", decoded: out },
        { name: "stderr", decoded: err },
      ]);
      resolve({
        exit_code: code,
        signal,
        stdout: out.text,
        stderr: err.text,
        timed_out: timedOut,
        truncated: stdout.truncated || stderr.truncated,
        ...(note === undefined ? {} : { note }),
      });
    });
  });
}

/** Keeps the first `limit` bytes of a stream and remembers whether more arrived. */
class CappedBuffer {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  truncated = false;

  constructor(private readonly limit: number) {}

  append(chunk: Buffer): void {
    const room = this.limit - this.kept;
    if (chunk.length > room) this.truncated = true;
    if (room <= 0) return;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(part);
    this.kept += part.length;
  }

  decode() {
    return decodeOutputBytes(Buffer.concat(this.chunks), { cut: this.truncated });
  }
}

/**
 * The program, arguments and environment that run the command with its caps in its sandbox: the
 * workspace's protected paths opened for bwrap, and the command's own pids cgroup when the sandbox
 * has a parent for it (entered by a launcher shell before `exec bwrap`, so the first fork counts).
 */
async function launchOf(options: ShellRunOptions): Promise<Launch> {
  const limits = options.limits ?? DEFAULT_SHELL_LIMITS;
  const shellArgs = [
    "/bin/sh",
    "-c",
    LIMITS_SCRIPT,
    "parley-shell",
    String(limits.cpu_seconds),
    String(Math.floor(limits.memory_bytes / 1024)),
    // dash counts file sizes in 512-byte blocks.
    String(Math.floor(limits.file_bytes / 512)),
    String(limits.processes),
    options.command,
  ];
  const { sandbox } = options;
  if (sandbox.kind === "unsandboxed") {
    const [file, ...args] = shellArgs as [string, ...string[]];
    const env = {
      PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
      HOME: options.workspace_root,
      LANG: SHELL_LANG,
    };
    return { file, args, env, extra_fds: [], release: async () => undefined };
  }
  const bwrap = sandbox.bwrap_path ?? locateBubblewrap(process.env.PATH);
  if (bwrap === null) {
    throw new ShellSandboxUnavailableError(
      "The shell sandbox is unavailable: bubblewrap (bwrap) is not installed; the command did not run",
    );
  }
  const protectedPaths = await openProtectedWorkspacePaths(options.workspace_root);
  let cgroup: string | null = null;
  try {
    if (sandbox.pids_cgroup_parent) {
      cgroup = await createPidsCgroup(sandbox.pids_cgroup_parent, limits.processes);
    }
  } catch (error) {
    await protectedPaths.close();
    throw error;
  }
  const extra_fds = protectedPaths.read_only.map(({ handle }) => handle.fd);
  const args = bubblewrapArguments({
    workspace_root: options.workspace_root,
    cwd: options.cwd,
    network: sandbox.network,
    tmp_bytes: limits.tmp_bytes,
    // spawn passes extra_fds[i] as descriptor 3 + i of the child.
    read_only: protectedPaths.read_only.map(({ path }, index) => ({ fd: 3 + index, path })),
    hidden: protectedPaths.hidden,
  });
  const release = async () => {
    await protectedPaths.close();
    if (cgroup !== null) await removePidsCgroup(cgroup).catch(() => undefined);
  };
  // bwrap gets the sandbox's environment too: its own /proc/1/environ is readable inside.
  const env = sandboxEnvironment(options.workspace_root);
  if (cgroup === null) return { file: bwrap, args: [...args, ...shellArgs], env, extra_fds, release };
  return {
    file: "/bin/sh",
    args: ["-c", JOIN_CGROUP_SCRIPT, cgroup, bwrap, ...args, ...shellArgs],
    env,
    extra_fds,
    release,
  };
}
