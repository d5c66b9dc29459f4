import { ParleyError } from "../errors.js";
import { systemClock } from "../ports/clock.js";
import type { SessionRecord } from "../schema/session.js";
import { createRandomIdSource, RuntimeIds } from "./ids.js";
import { InteractionWaiters } from "./interactions/interaction-waiters.js";
import type { RuntimeContext } from "./runtime-context.js";
import type { Session } from "./session/session-facade.js";
import { SessionHandle } from "./session/session-handle.js";
import { SessionHosts } from "./session/session-hosts.js";
import type {
  CreateSessionInput,
  SessionRuntimeApi,
  SessionRuntimeOptions,
} from "./session-runtime-options.js";

const DEFAULT_DELTA_FLUSH_MS = 50;
/**
 * How often queued commands are looked for (they reach their Turn within 2 s:
 * docs/behaviour.md#durability).
 */
const DEFAULT_COMMAND_SWEEP_MS = 250;
/** Sessions read per page of a sweep; every page is read (no cap starves newer sessions). */
const SWEEP_PAGE = 500;
/** Turns one recovery pass takes over at most; the next pass (1 s later) takes the rest. */
const RECOVER_BATCH = 200;
/**
 * How long a Turn stays `queued` before another process drives it: the process that committed the
 * prompt starts it at once, and another one taking the lease meanwhile would fence it. Within the
 * 2 s a queued command has to reach its Turn (recovery runs every second).
 */
const QUEUED_GRACE_MS = 500;
/** A session created without a title is untitled (`""`) until its first prompt or a rename names it. */
const DEFAULT_TITLE = "";

/** What the runtime holds in memory now (for tests and metrics). */
export interface SessionRuntimeStats {
  /** Session hosts held: sessions with something live in this process (see `SessionHosts`). */
  hosts: number;
}

/**
 * The process-wide host of sessions (docs/behaviour.md#durability). It owns the Turns this process
 * runs, wakes waiting tools from committed mutations on the bus (whichever process committed them),
 * and takes over open Turns whose owner is gone.
 */
export class SessionRuntime implements SessionRuntimeApi {
  readonly #context: RuntimeContext;
  readonly #hosts: SessionHosts;
  readonly #unsubscribe: () => void;
  readonly #closing = new AbortController();
  readonly #sweepTimer: ReturnType<typeof setInterval> | undefined;
  #sweeping = false;
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
      closing: this.#closing.signal,
      park_waiting_turns: options.park_waiting_turns ?? true,
    };
    this.#hosts = new SessionHosts(this.#context);
    this.#unsubscribe = options.bus.subscribe({
      onSessionEvent: (event) => {
        this.#context.waiters.observe(event);
        const { mutation } = event;
        if (mutation.variant === "session" && mutation.type === "closed") {
          this.#hosts.peek(event.session_id)?.observeClosed();
        }
      },
    });
    const sweep_ms = options.command_sweep_ms ?? DEFAULT_COMMAND_SWEEP_MS;
    if (sweep_ms > 0) {
      this.#sweepTimer = setInterval(() => void this.sweepCommands(), sweep_ms);
      (this.#sweepTimer as { unref?: () => void }).unref?.();
    }
  }

  /**
   * The wake-up of commands (docs/behaviour.md#durability) and its safety net: every session with a
   * queued `prompt` or `stop` gets a driver — a Turn running here applies a queued stop at once
   * (prompts at its next checkpoint); a session no live process drives is taken by this process
   * (its lease decides). Another instance's commit therefore reaches the Turn without any
   * notification.
   */
  async sweepCommands(): Promise<void> {
    if (this.#sweeping || this.#shutDown) return;
    this.#sweeping = true;
    try {
      await this.#settleAnsweredWaiters();
      let after: string | undefined;
      for (;;) {
        const page = await this.#context.store.listSessionsWithQueuedCommands({
          ...(after === undefined ? {} : { after }),
          limit: SWEEP_PAGE,
          queued_grace_ms: QUEUED_GRACE_MS,
        });
        for (const session_id of page) {
          if (this.#shutDown) return;
          await this.#driveQueued(session_id);
        }
        after = page.at(-1);
        if (page.length < SWEEP_PAGE || after === undefined) break;
      }
    } catch (error) {
      this.#context.logger?.warn({ err: error }, "sweeping queued commands failed");
    } finally {
      this.#sweeping = false;
    }
  }

  /** A session with queued commands that need a driver: its Turn here, or this process takes it. */
  async #driveQueued(session_id: string): Promise<void> {
    const held = this.#hosts.peek(session_id);
    if (held?.ownsTurn) {
      held.wake();
      return;
    }
    try {
      await this.#hosts.use(session_id, async (host) => host.wake());
    } catch (error) {
      this.#context.logger?.warn({ session_id, err: error }, "driving queued commands failed");
    }
  }

  async createSession(input: CreateSessionInput): Promise<Session> {
    this.#assertRunning();
    const agent = this.#context.agents.get(input.agent_id);
    if (!agent) throw new ParleyError("invalid_input", `Unknown agent: ${input.agent_id}`);
    const now = this.#context.clock.now();
    const approval_mode = input.approval_mode ?? "ask";
    const { models } = agent;
    if (input.model_id !== undefined && !models?.resolve(input.model_id)) {
      throw new ParleyError("invalid_input", `Unknown model_id: ${input.model_id}`);
    }
    const model_id = input.model_id ?? models?.default_model_id ?? null;
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
      tool_allowances: [],
      effective_tool_allowances: [],
      model_id,
      effective_model_id: model_id,
    };
    await this.#context.store.createSession(record);
    return new SessionHandle(this.#hosts, record.session_id);
  }

  async openSession(session_id: string, known?: SessionRecord): Promise<Session | null> {
    this.#assertRunning();
    const record = known ?? (await this.#context.store.getSession(session_id));
    if (!record) return null;
    if (!this.#context.agents.get(record.agent_id)) {
      throw new ParleyError("invalid_input", `Unknown agent: ${record.agent_id}`);
    }
    return new SessionHandle(this.#hosts, session_id, known);
  }

  async recover(): Promise<{ resumed_session_ids: string[] }> {
    this.#assertRunning();
    // Only the Turns that need a driver now (DESIGN §10.7): `queued` or `running` with no live
    // lease holder, read through an index. Waiting Turns are rows nobody reads until answered.
    const turns = await this.#context.store.listTurnsNeedingDriver({
      limit: RECOVER_BATCH,
      queued_grace_ms: QUEUED_GRACE_MS,
    });
    const resumed_session_ids: string[] = [];
    for (const turn of turns) {
      const { session_id } = turn;
      try {
        const record = await this.#context.store.getSession(session_id);
        // A closed session is never resumed (docs/behaviour.md#close).
        if (!record || record.closed_at !== null) continue;
        if (turn.state === "queued") {
          // Its prompt is committed and nobody started it: the queue's driver starts it.
          await this.#driveQueued(session_id);
          continue;
        }
        const resumed = await this.#hosts.use(
          session_id,
          async (host) => !host.ownsTurn && (await host.takeOver()),
          record,
        );
        if (resumed) resumed_session_ids.push(session_id);
      } catch (error) {
        this.#context.logger?.error({ session_id, err: error }, "resuming the session failed");
      }
    }
    return { resumed_session_ids };
  }

  /**
   * No lost wake-up (docs/behaviour.md#durability): a tool of a Turn held here waits on the bus for
   * its answer's `part` mutation; if that notice was lost, the committed answer is read here
   * instead.
   */
  async #settleAnsweredWaiters(): Promise<void> {
    const { store, waiters } = this.#context;
    for (const interaction_id of waiters.waitingInteractionIds()) {
      const record = await store.getInteraction(interaction_id);
      if (record && record.interaction.status !== "pending") waiters.settleFrom(record.interaction);
    }
  }

  async shutdown(): Promise<void> {
    if (this.#shutDown) return;
    this.#shutDown = true;
    if (this.#sweepTimer !== undefined) clearInterval(this.#sweepTimer);
    this.#closing.abort();
    this.#unsubscribe();
    await this.#hosts.shutdown();
  }

  /** A read-only snapshot of what the runtime holds. */
  stats(): SessionRuntimeStats {
    return { hosts: this.#hosts.size };
  }

  #assertRunning(): void {
    if (this.#shutDown) throw new Error("SessionRuntime was shut down");
  }
}
