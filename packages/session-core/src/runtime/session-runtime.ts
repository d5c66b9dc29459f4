import { ParleyError } from "../errors.js";
import { systemClock } from "../ports/clock.js";
import type { SessionRecord } from "../schema/session.js";
import { heldAnswer } from "./commands/held-answer.js";
import { respondToHeld } from "./commands/respond.js";
import { DriverPass } from "./driver-pass.js";
import { createRandomIdSource, RuntimeIds } from "./ids.js";
import { InteractionWaiters } from "./interactions/interaction-waiters.js";
import type { RuntimeContext } from "./runtime-context.js";
import { AnswerLock } from "./session/answer-lock.js";
import type { Session } from "./session/session-facade.js";
import { SessionHandle } from "./session/session-handle.js";
import { SessionHosts } from "./session/session-hosts.js";
import type {
  CreateSessionInput,
  HeldAnswer,
  SessionRuntimeApi,
  SessionRuntimeOptions,
} from "./session-runtime-options.js";
import { DEFAULT_PARK_GRACE_MS, ParkGrace } from "./turn/park-grace.js";

const DEFAULT_STREAM_CHECKPOINT_MS = 1_000;
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
  readonly #closing = new AbortController();
  readonly #pass: DriverPass;
  readonly #sweepTimer: ReturnType<typeof setInterval> | undefined;
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
      stream_checkpoint_ms: options.stream_checkpoint_ms ?? DEFAULT_STREAM_CHECKPOINT_MS,
      closing: this.#closing.signal,
      park_waiting_turns: options.park_waiting_turns ?? true,
      park_grace: new ParkGrace(options.park_grace_ms ?? DEFAULT_PARK_GRACE_MS),
    };
    this.#hosts = new SessionHosts(this.#context);
    this.#pass = new DriverPass(this.#context, this.#hosts);
    // No timer by default: the liveness pass (`recover()`, every second) sweeps commands too.
    const sweep_ms = options.command_sweep_ms ?? 0;
    if (sweep_ms > 0) {
      this.#sweepTimer = setInterval(() => void this.sweepCommands(), sweep_ms);
      (this.#sweepTimer as { unref?: () => void }).unref?.();
    }
  }

  /**
   * Drives every session whose queued `prompt` or `stop` needs a driver now (the command half of
   * `recover()`'s pass), for a caller that knows commands may have been missed.
   */
  async sweepCommands(): Promise<void> {
    if (this.#shutDown) return;
    await this.#pass.sweepCommands();
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

  heldAnswer(session_id: string, interaction_id: string): HeldAnswer | undefined {
    if (this.#shutDown) return undefined;
    const host = this.#hosts.peek(session_id);
    const held = heldAnswer(host, interaction_id);
    if (!host || held === undefined) return undefined;
    const hosts = this.#hosts;
    return {
      owner_id: host.owner_id,
      // `respondWith` refuses an input for another Interaction than the one found.
      respond: (input, actor) => respondToHeld(hosts, host, input, actor, held),
    };
  }

  lockForAnswer(session_id: string): AnswerLock | undefined {
    if (this.#shutDown) return undefined;
    return AnswerLock.start(this.#hosts, session_id);
  }

  /**
   * The liveness pass (`DriverPass`): takes over Turns whose holder is gone, drives queued commands
   * nobody drives and settles answers whose notice was lost, from one read when there is nothing.
   */
  async recover(): Promise<{ resumed_session_ids: string[] }> {
    this.#assertRunning();
    return this.#pass.run();
  }

  async shutdown(): Promise<void> {
    if (this.#shutDown) return;
    this.#shutDown = true;
    if (this.#sweepTimer !== undefined) clearInterval(this.#sweepTimer);
    this.#closing.abort();
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
