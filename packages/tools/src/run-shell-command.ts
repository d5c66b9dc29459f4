import { spawn } from "node:child_process";

export interface ShellRunOptions {
  command: string;
  /** Absolute, already confined working directory. */
  cwd: string;
  timeout_ms: number;
  /** Bytes kept of stdout and of stderr, each. */
  max_output_bytes: number;
  abort_signal: AbortSignal;
  /** The whole environment of the command; the server's own (API keys…) is never passed on. */
  env: Record<string, string>;
}

export type ShellRunResult = {
  /** Null when the process was ended by a signal. */
  exit_code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timed_out: boolean;
  truncated: boolean;
};

/** Thrown when the tool call was aborted (Turn stopped, session closed); the process group is killed. */
export class ShellAbortedError extends Error {
  override readonly name = "ShellAbortedError";
}

/** How long the pipes may stay open after the process exited (a background child holding them). */
const PIPE_DRAIN_GRACE_MS = 500;

/**
 * Runs `command` with `/bin/sh -c` in its own process group, so that the timeout and an abort kill
 * the command together with every child it started. Output beyond the cap is dropped, not buffered.
 */
export function runShellCommand(options: ShellRunOptions): Promise<ShellRunResult> {
  if (options.abort_signal.aborted) return Promise.reject(new ShellAbortedError("Shell command aborted"));
  return new Promise((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", options.command], {
      cwd: options.cwd,
      env: options.env,
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
      resolve({
        exit_code: code,
        signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        timed_out: timedOut,
        truncated: stdout.truncated || stderr.truncated,
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

  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}
