import { spawn } from "node:child_process";
import { decodeOutputBytes, replacementNote } from "./output-text.js";
import {
  bubblewrapArguments,
  locateBubblewrap,
  SHELL_LANG,
  type ShellSandbox,
  sandboxEnvironment,
} from "./shell-sandbox.js";

/** Per-process caps set with `ulimit` before the command starts (it cannot raise them again). */
export interface ShellResourceLimits {
  /** RLIMIT_CPU: CPU seconds per process. */
  cpu_seconds: number;
  /** RLIMIT_AS: address space per process, in bytes. */
  memory_bytes: number;
  /** RLIMIT_FSIZE: largest file a process may write, in bytes. */
  file_bytes: number;
}

export const DEFAULT_SHELL_LIMITS: ShellResourceLimits = {
  cpu_seconds: 120,
  memory_bytes: 4 * 1024 * 1024 * 1024,
  file_bytes: 1024 * 1024 * 1024,
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
 * Sets the caps, then runs the command: `$1`–`$3` are the limits, `$4` the command line. A limit
 * the server's own hard limit already keeps lower cannot be raised, and then stays lower.
 */
const LIMITS_SCRIPT =
  'ulimit -t "$1" 2>/dev/null; ulimit -v "$2" 2>/dev/null; ulimit -f "$3" 2>/dev/null; shift 3; exec /bin/sh -c "$1"';

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
export function runShellCommand(options: ShellRunOptions): Promise<ShellRunResult> {
  if (options.abort_signal.aborted) return Promise.reject(new ShellAbortedError("Shell command aborted"));
  let launch: { file: string; args: string[]; env: Record<string, string> };
  try {
    launch = launchOf(options);
  } catch (error) {
    return Promise.reject(error);
  }
  return new Promise((resolve, reject) => {
    const child = spawn(launch.file, launch.args, {
      cwd: options.cwd,
      env: launch.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
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

/** The program, arguments and environment that run the command with its caps in its sandbox. */
function launchOf(options: ShellRunOptions): { file: string; args: string[]; env: Record<string, string> } {
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
    return { file, args, env };
  }
  const bwrap = sandbox.bwrap_path ?? locateBubblewrap(process.env.PATH);
  if (bwrap === null) {
    throw new ShellSandboxUnavailableError(
      "The shell sandbox is unavailable: bubblewrap (bwrap) is not installed; the command did not run",
    );
  }
  const args = bubblewrapArguments({
    workspace_root: options.workspace_root,
    cwd: options.cwd,
    network: sandbox.network,
  });
  // bwrap gets the sandbox's environment too: its own /proc/1/environ is readable inside.
  return { file: bwrap, args: [...args, ...shellArgs], env: sandboxEnvironment(options.workspace_root) };
}
