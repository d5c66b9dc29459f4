import { ParleyError } from "../errors.js";
import type { TurnLease } from "../ports/turn-lease.js";
import type { ApprovalMode } from "../schema/approval-mode.js";
import type { CancelReason } from "../schema/interaction.js";
import type { ActionMessage, AssistantMessage } from "../schema/messages.js";
import type { UnsequencedMutation } from "../schema/mutation.js";
import type { SessionRecord, StopResult } from "../schema/session.js";
import type { WorkspaceRef } from "../tools/define-agent-tool.js";
import type { RuntimeContext } from "./runtime-context.js";
import type { AgentDefinition, TurnHandle } from "./session-facade.js";
import { type ConfigCommand, type QueueItem, SessionQueue } from "./session-queue.js";
import { SessionWriter } from "./session-writer.js";
import { type TurnHost, TurnRunner } from "./turn-runner.js";

export const PROMPT_CANCELLED = "Prompt cancelled because session was stopped";
export const CONFIG_ACTION_TITLE = "Session configuration updated";

/**
 * This process's side of one session: its write chain, its FIFO queue, and the Turn it runs (at most
 * one, and only while holding the session's lease). Shared by every facade of the session here.
 */
export class SessionHost implements TurnHost {
  readonly session_id: string;
  readonly writer: SessionWriter;
  readonly context: RuntimeContext;
  readonly agent: AgentDefinition;
  readonly workspace: WorkspaceRef | undefined;
  readonly #queue = new SessionQueue();
  readonly #onIdle: (host: SessionHost) => void;
  #effective: ApprovalMode;
  #turn: TurnRunner | undefined;
  #starting = false;
  #closed = false;
  #shutDown = false;
  /** Operations of this process using the host now (see `SessionHosts`). */
  #pins = 0;
  /** Work started here that nobody awaits: starting the next Turn, releasing a Turn's lease. */
  #background = 0;

  private constructor(
    context: RuntimeContext,
    record: SessionRecord,
    agent: AgentDefinition,
    onIdle: (host: SessionHost) => void,
  ) {
    this.context = context;
    this.session_id = record.session_id;
    this.agent = agent;
    this.workspace = context.resolveWorkspace?.(record);
    this.#effective = record.effective_approval_mode;
    this.#closed = record.closed_at !== null;
    this.#onIdle = onIdle;
    this.writer = new SessionWriter({
      session_id: record.session_id,
      store: context.store,
      bus: context.bus,
      clock: context.clock,
      ids: context.ids,
      logger: context.logger,
      onIdle: () => this.#notifyIfIdle(),
    });
  }

  /**
   * The host of `record`'s session; `onIdle` is told each time it may have become idle. Everything
   * it starts from is the stored record: a host created again after an eviction behaves as the
   * evicted one would have.
   */
  static create(
    context: RuntimeContext,
    record: SessionRecord,
    onIdle: (host: SessionHost) => void,
  ): SessionHost {
    const agent = context.agents.get(record.agent_id);
    if (!agent) throw new ParleyError("invalid_input", `Unknown agent: ${record.agent_id}`);
    return new SessionHost(context, record, agent, onIdle);
  }

  /**
   * Whether the host holds nothing live, so that dropping it loses nothing: no Turn running,
   * starting or being resumed here (hence no lease or waiter of a Turn), no queued prompt or config
   * command, no write in flight, no lease release or Turn start in flight, and no operation of this
   * process using it (a facade call, or a facade Interaction awaiting its answer).
   */
  get isIdle(): boolean {
    return (
      this.#pins === 0 &&
      this.#background === 0 &&
      this.#turn === undefined &&
      !this.#starting &&
      this.#queue.isEmpty() &&
      this.writer.isIdle
    );
  }

  /** An operation starts using the host: it stays until `unpin`. */
  pin(): void {
    this.#pins += 1;
  }

  unpin(): void {
    this.#pins -= 1;
    this.#notifyIfIdle();
  }

  #notifyIfIdle(): void {
    if (this.isIdle) this.#onIdle(this);
  }

  /** Runs work nobody awaits while counting it as live; its failure is logged. */
  #inBackground(work: Promise<unknown>, failure: string): void {
    this.#background += 1;
    void work
      .catch((error: unknown) =>
        this.context.logger?.error({ session_id: this.session_id, err: error }, failure),
      )
      .finally(() => {
        this.#background -= 1;
        this.#notifyIfIdle();
      });
  }

  /**
   * Before a Turn starts or resumes here: the effective mode is the stored one. A configured mode
   * that differs from it with no command queued in this process is a change whose queue died with
   * its process (D.5: restored sessions run with effective = configured); it is applied silently.
   */
  async #refreshEffective(): Promise<void> {
    const record = await this.context.store.getSession(this.session_id);
    if (!record) return;
    if (record.approval_mode !== record.effective_approval_mode && !this.#queue.hasConfig()) {
      await this.writer.commitSessionChange({
        session_patch: { effective_approval_mode: record.approval_mode },
      });
      this.#effective = record.approval_mode;
      return;
    }
    this.#effective = record.effective_approval_mode;
  }

  get activeTurn(): TurnRunner | undefined {
    return this.#turn;
  }

  get isClosed(): boolean {
    return this.#closed;
  }

  /** Whether this process runs (or is starting) the session's Turn. */
  get ownsTurn(): boolean {
    return this.#turn !== undefined || this.#starting;
  }

  effectiveMode(): ApprovalMode {
    return this.#effective;
  }

  drainQueue(): QueueItem[] {
    return this.#queue.drain();
  }

  hasQueuedPrompt(): boolean {
    return this.#queue.hasPrompt();
  }

  /**
   * Queues a prompt; resolves once it belongs to a Turn (§B.8). A retried prompt with the same
   * `request_id` gets the first one's handle instead of a second Turn (in this process).
   */
  enqueuePrompt(query: string, request_id?: string): Promise<TurnHandle> {
    if (request_id !== undefined) {
      const requests = this.context.prompt_requests;
      const earlier = requests.get(this.session_id, request_id);
      if (earlier) return earlier;
      const assigned = this.enqueuePrompt(query);
      requests.remember(this.session_id, request_id, assigned);
      assigned.catch(() => requests.forget(this.session_id, request_id, assigned));
      return assigned;
    }
    if (this.#shutDown) return Promise.reject(new Error("SessionRuntime was shut down"));
    const assigned = new Promise<TurnHandle>((resolve, reject) => {
      this.#queue.push({ kind: "prompt", query, assign: resolve, reject });
    });
    if (!this.#turn) this.#startNextTurnInBackground();
    return assigned;
  }

  enqueueConfig(command: ConfigCommand): void {
    this.#queue.push(command);
  }

  #startNextTurnInBackground(): void {
    this.#inBackground(this.#startNextTurn(), "starting the next turn failed");
  }

  async #startNextTurn(): Promise<void> {
    if (this.#turn || this.#starting || this.#shutDown || !this.#queue.hasPrompt()) return;
    this.#starting = true;
    let lease: TurnLease | null = null;
    try {
      lease = await this.context.leases.acquire(this.session_id);
    } catch (error) {
      this.#starting = false;
      this.#rejectQueuedPrompts(error);
      return;
    }
    if (!lease) {
      this.#starting = false;
      this.#rejectQueuedPrompts(
        new ParleyError("invalid_input", `Session ${this.session_id} has a Turn running in another process`),
      );
      return;
    }
    try {
      await this.#refreshEffective();
      const open = await this.context.store.listOpenAssistantMessages(this.session_id);
      const orphan = open[open.length - 1];
      if (orphan?.type === "assistant") {
        // A Turn whose owner died: resume it; the queued prompt joins it as a steer at its next checkpoint.
        this.#startResumed(lease, orphan, new Set());
        return;
      }
      const next = this.#queue.takeNextPrompt();
      if (!next) {
        this.#starting = false;
        await lease.release();
        return;
      }
      const turn = new TurnRunner(
        this,
        lease,
        this.context.ids.turn(this.session_id, this.context.clock.now()),
      );
      this.#turn = turn;
      this.#starting = false;
      turn.runNew(next.prompt, next.configs);
    } catch (error) {
      this.#starting = false;
      await lease.release();
      this.#rejectQueuedPrompts(error);
    }
  }

  #rejectQueuedPrompts(error: unknown): void {
    for (const prompt of this.#queue.removePrompts()) prompt.reject(error);
  }

  /** Resumes the Turn of `message` while holding `lease` (DESIGN §3.3). */
  #startResumed(lease: TurnLease, message: AssistantMessage, resolved_here: ReadonlySet<string>): void {
    this.context.logger?.info(
      {
        session_id: this.session_id,
        turn_id: message.turn_id,
        epoch: lease.epoch,
        message_id: message.message_id,
      },
      "resuming a Turn whose owner is gone",
    );
    const turn = new TurnRunner(
      this,
      lease,
      message.turn_id ?? this.context.ids.turn(this.session_id, this.context.clock.now()),
    );
    this.#turn = turn;
    this.#starting = false;
    turn.runResumed(message, resolved_here);
  }

  /**
   * Takes the session's lease for a Turn this process is about to resume (a `respond` found no live
   * owner). While claimed, prompts arriving here wait in the queue for that Turn instead of racing
   * for the lease. Null when another live process owns the session.
   */
  async claim(): Promise<TurnLease | null> {
    if (this.#turn || this.#starting || this.#shutDown) return null;
    this.#starting = true;
    const lease = await this.context.leases.acquire(this.session_id).catch((error: unknown) => {
      this.context.logger?.warn({ session_id: this.session_id, err: error }, "acquiring the lease failed");
      return null;
    });
    if (!lease) this.#starting = false;
    return lease;
  }

  /** Gives a claim back unused. */
  async unclaim(lease: TurnLease): Promise<void> {
    this.#starting = false;
    await lease.release();
    if (!this.#closed) this.#startNextTurnInBackground();
  }

  /**
   * Resumes an open Turn no live process owns, or, with `stop_reason`, closes it stopped. Returns
   * false when there was nothing to resume or another process holds the lease.
   */
  async takeOver(
    options: { lease?: TurnLease; resolved_here?: ReadonlySet<string>; stop_reason?: CancelReason } = {},
  ): Promise<boolean> {
    if (this.#turn || (this.#starting && !options.lease) || this.#shutDown) {
      await options.lease?.release();
      return false;
    }
    this.#starting = true;
    const lease = options.lease ?? (await this.context.leases.acquire(this.session_id).catch(() => null));
    if (!lease) {
      this.#starting = false;
      return false;
    }
    const open = await this.context.store.listOpenAssistantMessages(this.session_id);
    const message = open[open.length - 1];
    if (message?.type !== "assistant") {
      this.#starting = false;
      await lease.release();
      if (!this.#closed) this.#startNextTurnInBackground();
      return false;
    }
    await this.#refreshEffective();
    if (options.stop_reason) {
      const turn = new TurnRunner(this, lease, message.turn_id ?? "");
      this.#turn = turn;
      this.#starting = false;
      turn.runStopOfOrphan(message, options.stop_reason);
      await turn.finished;
      return true;
    }
    this.#startResumed(lease, message, options.resolved_here ?? new Set());
    return true;
  }

  turnEnded(turn: TurnRunner): void {
    if (this.#turn !== turn) return;
    this.#turn = undefined;
    this.context.waiters.abandon(turn);
    this.#inBackground(turn.releaseLease(), "releasing the lease failed");
    if (!this.#closed && !this.#shutDown) this.#startNextTurnInBackground();
  }

  /** At a checkpoint: the effective mode changes, then (per options) its Action is persisted (§D.4). */
  async applyConfig(command: ConfigCommand, turn_id: string, epoch: number): Promise<void> {
    const { clock, ids, logger } = this.context;
    this.#effective = command.approval_mode;
    const now = clock.now();
    await this.writer.commitSessionChange({
      epoch,
      session_patch: { effective_approval_mode: command.approval_mode, updated_at: now },
      ...(command.publish_mutation ? { mutation: await this.#configMutation(now) } : {}),
    });
    if (!command.persist_action) return;
    try {
      await this.writer.appendMessage(
        (sequence, at): ActionMessage => ({
          message_id: ids.configAction(this.session_id, at),
          session_id: this.session_id,
          turn_id,
          type: "action",
          action_type: "session_config",
          status: "completed",
          title: CONFIG_ACTION_TITLE,
          description: `security.approval_mode: ${command.approval_mode}`,
          sequence,
          revision: 1,
          created_at: at,
          updated_at: at,
        }),
        { epoch, publish: command.publish_mutation },
      );
    } catch (error) {
      // §D.3: the configuration stays effective when its Action cannot be persisted.
      logger?.error(
        { session_id: this.session_id, err: error },
        "persisting the configuration action failed",
      );
    }
  }

  async #configMutation(now: number): Promise<UnsequencedMutation> {
    const record = await this.context.store.getSession(this.session_id);
    return {
      ...this.writer.newMutationBase(now),
      variant: "session",
      type: "config",
      approval_mode: record?.approval_mode ?? this.#effective,
      effective_approval_mode: this.#effective,
    };
  }

  /** `set()`: the configured mode is persisted at once; the change is queued to the next checkpoint. */
  async configure(command: ConfigCommand): Promise<void> {
    const now = this.context.clock.now();
    await this.writer.commitSessionChange({
      session_patch: { approval_mode: command.approval_mode, updated_at: now },
      ...(command.publish_mutation
        ? {
            mutation: {
              ...this.writer.newMutationBase(now),
              variant: "session",
              type: "config",
              approval_mode: command.approval_mode,
              effective_approval_mode: this.#effective,
            },
          }
        : {}),
    });
    this.enqueueConfig(command);
  }

  /** §B.9. */
  async stop(reason: CancelReason = "turn_stopped"): Promise<StopResult> {
    const cancelled = await this.#cancelQueuedPrompts();
    const turn = this.#turn;
    if (turn) {
      await turn.stop(reason);
      return { stopped: true, turn_id: turn.turn_id, cancelled_queued_prompts: cancelled, reason: "stopped" };
    }
    const open = await this.context.store.listOpenAssistantMessages(this.session_id);
    const orphan = open[open.length - 1];
    if (orphan && (await this.takeOver({ stop_reason: reason }))) {
      return {
        stopped: true,
        ...(orphan.turn_id === undefined ? {} : { turn_id: orphan.turn_id }),
        cancelled_queued_prompts: cancelled,
        reason: "stopped",
      };
    }
    return { stopped: false, cancelled_queued_prompts: cancelled, reason: "idle" };
  }

  /** Each cancelled prompt gets a synthetic Turn that starts and fails at once (§B.9 step 1). */
  async #cancelQueuedPrompts(): Promise<number> {
    const prompts = this.#queue.removePrompts();
    const { clock, ids } = this.context;
    for (const prompt of prompts) {
      const turn_id = ids.cancelledTurn(this.session_id, clock.now());
      const turnMutation = (type: "start" | "finish"): UnsequencedMutation => ({
        ...this.writer.newMutationBase(clock.now()),
        variant: "turn",
        turn_id,
        type,
        status: type === "start" ? "running" : "failed",
        ...(type === "finish" ? { error: PROMPT_CANCELLED } : {}),
      });
      try {
        await this.writer.commitSessionChange({ mutation: turnMutation("start") });
        await this.writer.commitSessionChange({ mutation: turnMutation("finish") });
      } finally {
        prompt.assign({
          id: turn_id,
          finished: Promise.resolve({ turn_id, text: "", success: false, error: PROMPT_CANCELLED }),
        });
      }
    }
    return prompts.length;
  }

  /** DESIGN §3.7: stop the Turn (pending → `session_disposed`), then mark the session closed. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.stop("session_disposed");
    const now = this.context.clock.now();
    await this.writer.commitSessionChange({
      session_patch: { closed_at: now, updated_at: now },
      mutation: { ...this.writer.newMutationBase(now), variant: "session", type: "closed", closed_at: now },
    });
  }

  /** Another process closed the session: a Turn running here stops with `session_disposed`. */
  observeClosed(): void {
    this.#closed = true;
    void this.#turn?.stop("session_disposed");
  }

  /** Shutdown: every Turn here is abandoned without writing and its lease released. */
  async shutdown(): Promise<void> {
    this.#shutDown = true;
    const turn = this.#turn;
    if (!turn) return;
    turn.abandon();
    await turn.finished;
    await turn.releaseLease();
  }
}
