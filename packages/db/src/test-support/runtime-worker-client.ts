import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { SessionMutation, TurnResult } from "@parley/session-core";
import type { RespondOutcome, WorkerCommand, WorkerMessage } from "./runtime-worker-protocol.js";

const WORKER_SCRIPT = fileURLToPath(new URL("./runtime-worker.ts", import.meta.url));

type CommandInput = WorkerCommand extends infer C ? (C extends WorkerCommand ? Omit<C, "id"> : never) : never;

/** An error the worker reported; `code` is the ParleyCode when it was a ParleyError. */
export class WorkerError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/**
 * The parent's handle on one real Parley process (`runtime-worker.ts`, forked with tsx). It records
 * every mutation the worker's subscriptions deliver and every Turn it saw finish.
 */
export class RuntimeWorker {
  readonly name: string;
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  readonly #observers = new Set<(message: WorkerMessage) => void>();
  readonly #exited: Promise<number | null>;
  /** Mutations delivered to this worker's subscriptions, by session, in delivery order. */
  readonly mutations = new Map<string, SessionMutation[]>();
  readonly messages: WorkerMessage[] = [];
  #nextId = 1;

  private constructor(name: string, child: ChildProcess) {
    this.name = name;
    this.#child = child;
    this.#exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
    child.on("message", (raw) => this.#receive(raw as WorkerMessage));
    void this.#exited.then(() => {
      for (const { reject } of this.#pending.values()) reject(new Error(`worker ${name} exited`));
      this.#pending.clear();
    });
  }

  static async start(options: {
    name: string;
    database_url: string;
    effects_file: string;
    /**
     * Run `runtime.recover()` this often (ms), after a startup pass; 0: never (the test sends
     * `recover` itself). Default: the worker's, the API's `PARLEY_RECOVER_INTERVAL_MS` default
     * (the tests run the production configuration, DESIGN §10.7).
     */
    recover_every_ms?: number;
    /** Park waiting Turns, as the API does by default; `false` is the live-waiter variant. */
    park_waiting_turns?: boolean;
    /** `PARLEY_BUS` of the worker (unset: NOTIFY). */
    bus_url?: string | undefined;
  }): Promise<RuntimeWorker> {
    const child = fork(WORKER_SCRIPT, [], {
      execArgv: ["--conditions=parley-source", "--import", "tsx"],
      env: {
        ...process.env,
        PARLEY_WORKER_NAME: options.name,
        PARLEY_WORKER_DATABASE_URL: options.database_url,
        PARLEY_WORKER_EFFECTS_FILE: options.effects_file,
        ...(options.recover_every_ms === undefined
          ? {}
          : { PARLEY_WORKER_RECOVER_MS: String(options.recover_every_ms) }),
        PARLEY_WORKER_PARKING: options.park_waiting_turns === false ? "off" : "on",
        ...(options.bus_url ? { PARLEY_WORKER_BUS_URL: options.bus_url } : {}),
      },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const worker = new RuntimeWorker(options.name, child);
    await Promise.race([
      worker.waitFor((message) => message.type === "ready"),
      worker.#exited.then((code) => {
        throw new Error(`worker ${options.name} exited with ${code} before it was ready`);
      }),
    ]);
    return worker;
  }

  call<T>(input: CommandInput): Promise<T> {
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.#child.send({ ...input, id } as WorkerCommand);
    });
  }

  createSession(): Promise<string> {
    return this.call({ command: "create" });
  }

  prompt(session_id: string, query: string): Promise<string> {
    return this.call({ command: "prompt", session_id, query });
  }

  respond(session_id: string, interaction_id: string, decision: "approved" | "denied" = "approved") {
    return this.call<{ status: string }>({ command: "respond", session_id, interaction_id, decision });
  }

  respondMany(session_id: string, interaction_id: string, count: number): Promise<RespondOutcome[]> {
    return this.call({ command: "respond-many", session_id, interaction_id, count });
  }

  subscribe(session_id: string): Promise<null> {
    return this.call({ command: "subscribe", session_id });
  }

  recover(): Promise<string[]> {
    return this.call({ command: "recover" });
  }

  /** Resolves with the first message (already received or later) that matches. */
  waitFor(predicate: (message: WorkerMessage) => boolean): Promise<WorkerMessage> {
    const seen = this.messages.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => {
      const observer = (message: WorkerMessage) => {
        if (!predicate(message)) return;
        this.#observers.delete(observer);
        resolve(message);
      };
      this.#observers.add(observer);
    });
  }

  async turnFinished(turn_id: string): Promise<TurnResult> {
    const message = await this.waitFor((item) => item.type === "turn-finished" && item.turn_id === turn_id);
    if (message.type !== "turn-finished") throw new Error("unreachable");
    return message.result;
  }

  /** SIGKILL: no shutdown code runs, its connections just drop. */
  async kill(): Promise<void> {
    this.#child.kill("SIGKILL");
    await this.#exited;
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    await this.call({ command: "shutdown" }).catch(() => undefined);
    await this.#exited;
  }

  #receive(message: WorkerMessage): void {
    if (message.type === "reply") {
      const waiter = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      if (message.ok) waiter?.resolve(message.value);
      else waiter?.reject(new WorkerError(message.error.message, message.error.code));
      return;
    }
    if (message.type === "mutation") {
      const list = this.mutations.get(message.session_id) ?? [];
      list.push(message.mutation);
      this.mutations.set(message.session_id, list);
    }
    this.messages.push(message);
    for (const observer of [...this.#observers]) observer(message);
  }
}
