import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { freePort } from "../embedded/free-ports.js";

/** A `nats-server` of the test's own, so it can be stopped and restarted without touching others. */
export interface PrivateNats {
  url: string;
  port: number;
  /** Stops the server (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
}

/** `PARLEY_NATS_SERVER`, else `nats-server` on the PATH, else the Debian package's path. */
export function findNatsServer(): string | null {
  const candidates = [
    process.env.PARLEY_NATS_SERVER,
    ...(process.env.PATH ?? "").split(path.delimiter).map((dir) => path.join(dir, "nats-server")),
    "/usr/sbin/nats-server",
  ];
  return candidates.find((candidate): candidate is string => !!candidate && existsSync(candidate)) ?? null;
}

/** Starts a core NATS server (no JetStream: the bus does not need it) on a free loopback port. */
export async function startPrivateNats(): Promise<PrivateNats> {
  const binary = findNatsServer();
  if (!binary)
    throw new Error("nats-server not found (install the nats-server package or set PARLEY_NATS_SERVER)");
  const port = await freePort();
  let child: ChildProcess | null = null;

  const start = async () => {
    const started = spawn(binary, ["-a", "127.0.0.1", "-p", String(port)], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    child = started;
    await new Promise<void>((resolve, reject) => {
      let output = "";
      started.stderr?.setEncoding("utf8");
      started.stderr?.on("data", (chunk: string) => {
        output += chunk;
        if (output.includes("Server is ready")) resolve();
      });
      started.once("exit", (code) =>
        reject(new Error(`nats-server exited (${code}) before ready:\n${output}`)),
      );
    });
  };

  const stop = async () => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()));
    running.kill("SIGTERM");
    await exited;
  };

  await start();
  return { url: `nats://127.0.0.1:${port}`, port, stop, start };
}
