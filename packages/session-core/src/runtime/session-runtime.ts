import { ParleyError } from "../errors.js";
import { systemClock } from "../ports/clock.js";
import type { SessionRecord } from "../schema/session.js";
import { createRandomIdSource, RuntimeIds } from "./ids.js";
import { InteractionWaiters } from "./interaction-waiters.js";
import type { RuntimeContext } from "./runtime-context.js";
import type { Session } from "./session-facade.js";
import { SessionHandle } from "./session-handle.js";
import { SessionHost } from "./session-host.js";
import type {
  CreateSessionInput,
  SessionRuntimeApi,
  SessionRuntimeOptions,
} from "./session-runtime-options.js";

const DEFAULT_DELTA_FLUSH_MS = 50;
const DEFAULT_TITLE = "New session";

/**
 * The process-wide host of sessions (DESIGN §3.3–3.4). It owns the Turns this process runs, wakes
 * waiting tools from committed mutations on the bus (whichever process committed them), and takes
 * over open Turns whose owner is gone.
 */
export class SessionRuntime implements SessionRuntimeApi {
  readonly #context: RuntimeContext;
  readonly #hosts = new Map<string, Promise<SessionHost>>();
  readonly #unsubscribe: () => void;
  #shutDown = false;

  constructor(options: SessionRuntimeOptions) {
    this.#context = {
      store: options.store,
      bus: options.bus,
      leases: options.leases,
      agents: options.agents,
      resolveWorkspace: options.resolveWorkspace,
      clock: options.clock ?? systemClock,
      ids: new RuntimeIds(options.ids ?? createRandomIdSource()),
      logger: options.logger,
      waiters: new InteractionWaiters(),
      delta_flush_ms: options.delta_flush_ms ?? DEFAULT_DELTA_FLUSH_MS,
    };
    this.#unsubscribe = options.bus.subscribe({
      onSessionEvent: (event) => {
        this.#context.waiters.observe(event);
        const { mutation } = event;
        if (mutation.variant === "session" && mutation.type === "closed") {
          void this.#hosts.get(event.session_id)?.then(
            (host) => host.observeClosed(),
            () => undefined,
          );
        }
      },
    });
  }

  async createSession(input: CreateSessionInput): Promise<Session> {
    this.#assertRunning();
    if (!this.#context.agents.get(input.agent_id)) {
      throw new ParleyError("invalid_input", `Unknown agent: ${input.agent_id}`);
    }
    const now = this.#context.clock.now();
    const approval_mode = input.approval_mode ?? "ask";
    const record: SessionRecord = {
      session_id: input.session_id ?? this.#context.ids.session(),
      owner_id: input.owner_id,
      agent_id: input.agent_id,
      title: input.title ?? DEFAULT_TITLE,
      workspace_id: input.workspace_id ?? null,
      created_at: now,
      updated_at: now,
      closed_at: null,
      approval_mode,
      effective_approval_mode: approval_mode,
    };
    await this.#context.store.createSession(record);
    return new SessionHandle(await this.#host(record));
  }

  async openSession(session_id: string): Promise<Session | null> {
    this.#assertRunning();
    const record = await this.#context.store.getSession(session_id);
    if (!record) return null;
    return new SessionHandle(await this.#host(record));
  }

  async recover(): Promise<{ resumed_session_ids: string[] }> {
    this.#assertRunning();
    const open = await this.#context.store.listOpenAssistantMessages();
    const resumed_session_ids: string[] = [];
    for (const session_id of new Set(open.map((message) => message.session_id))) {
      try {
        const record = await this.#context.store.getSession(session_id);
        if (!record) continue;
        const host = await this.#host(record);
        if (host.ownsTurn) continue;
        if (await host.takeOver()) resumed_session_ids.push(session_id);
      } catch (error) {
        this.#context.logger?.error({ session_id, err: error }, "resuming the session failed");
      }
    }
    return { resumed_session_ids };
  }

  async shutdown(): Promise<void> {
    if (this.#shutDown) return;
    this.#shutDown = true;
    this.#unsubscribe();
    const hosts = await Promise.allSettled(this.#hosts.values());
    await Promise.all(
      hosts.map((entry) => (entry.status === "fulfilled" ? entry.value.shutdown() : undefined)),
    );
  }

  #host(record: SessionRecord): Promise<SessionHost> {
    let host = this.#hosts.get(record.session_id);
    if (!host) {
      host = SessionHost.open(this.#context, record);
      this.#hosts.set(record.session_id, host);
      host.catch(() => this.#hosts.delete(record.session_id));
    }
    return host;
  }

  #assertRunning(): void {
    if (this.#shutDown) throw new Error("SessionRuntime was shut down");
  }
}
