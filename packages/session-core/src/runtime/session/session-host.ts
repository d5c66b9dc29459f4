import type { LanguageModelV3 } from "@ai-sdk/provider";
import { ParleyError } from "../../errors.js";
import type { TurnLease } from "../../ports/turn-lease.js";
import type { ApprovalMode } from "../../schema/approval-mode.js";
import type { CancelReason } from "../../schema/interaction.js";
import type { AssistantMessage, SessionMessage } from "../../schema/messages.js";
import type { SessionRecord } from "../../schema/session.js";
import type { SessionCommand, SetCommand } from "../../schema/session-command.js";
import type { ToolAllowance } from "../../schema/tool-allowance.js";
import type { WorkspaceRef } from "../../tools/define-agent-tool.js";
import type { CommandHost } from "../commands/command-host.js";
import { applyConfig, refreshEffective } from "../commands/set.js";
import { applyQueuedStop, cancelQueuedTurn } from "../commands/stop.js";
import type { RuntimeContext } from "../runtime-context.js";
import { planQueue, queueNeedsDriver } from "../turn/queue-plan.js";
import { planResume } from "../turn/resume-plan.js";
import { waitForTurnFinish } from "../turn/turn-finish-watch.js";
import { type TurnHost, TurnRunner } from "../turn/turn-runner.js";
import {
  type HostEffect,
  type HostEvent,
  type HostState,
  initialHostState,
  ownsTurn,
  transitionHost,
  turnOf,
} from "./host-lifecycle.js";
import { effectiveConfig, type SessionConfig } from "./session-config.js";
import type { AgentDefinition, TurnHandle } from "./session-facade.js";
import { SessionWriter } from "./session-writer.js";

/**
 * What one run of lifecycle effects works with, and what it leaves for its caller: `lease` is the
 * lease taken while starting (or given by a claim) until it is released or handed to a Turn; `turn`
 * the Turn the effects concern (its own lease is released through it); `started` the Turn a drive
 * started; `took_over` whether an open Turn was taken over.
 */
interface EffectScope {
  lease?: TurnLease;
  turn?: TurnRunner;
  resolved_here?: ReadonlySet<string>;
  started?: TurnRunner;
  took_over?: boolean;
}

/**
 * This process's side of one session: its write chain and the Turn it runs (at most one, and only
 * while holding the session's lease). The session's commands (`prompt`, `set`, `stop`) are rows
 * (docs/behaviour.md#commands): any instance commits them, and the instance that runs the Turn
 * applies them at its checkpoints; nothing of a session's queue lives here. Shared by every facade
 * of the session here.
 */
export class SessionHost implements TurnHost, CommandHost {
  readonly session_id: string;
  readonly writer: SessionWriter;
  readonly context: RuntimeContext;
  readonly agent: AgentDefinition;
  readonly workspace: WorkspaceRef | undefined;
  readonly #onIdle: (host: SessionHost) => void;
  /** The settings the Turn run here uses (see `session-config.ts`). */
  #effective: SessionConfig;
  /** Where this process is in the session's life (`host-lifecycle.ts` decides every move). */
  #state: HostState<TurnRunner>;
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
    this.#effective = effectiveConfig(record);
    this.#state = initialHostState(record.closed_at !== null);
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
   * starting or being resumed here (hence no lease or waiter of a Turn), no write in flight, no lease
   * release or Turn start in flight, and no operation of this process using it. Queued commands are
   * rows, so they never keep a host.
   */
  get isIdle(): boolean {
    return this.#pins === 0 && this.#background === 0 && !ownsTurn(this.#state) && this.writer.isIdle;
  }

  /** Moves the lifecycle on by `event`; returns what the host must do now. */
  #send(event: HostEvent<TurnRunner>): HostEffect[] {
    const { state, effects } = transitionHost(this.#state, event);
    this.#state = state;
    return effects;
  }

  /** Sends `event` and performs every effect it asks for (see `#perform`). */
  #dispatch(event: HostEvent<TurnRunner>, scope: EffectScope = {}): Promise<EffectScope> {
    return this.#perform(this.#send(event), scope);
  }

  /** Performs the lifecycle's effects in order, every one of them; resolves with `scope`. */
  async #perform(effects: HostEffect[], scope: EffectScope): Promise<EffectScope> {
    for (const effect of effects) {
      switch (effect.kind) {
        case "read_queue":
          await this.#readQueue(scope);
          break;
        case "acquire_lease":
          await this.#acquireLease(scope);
          break;
        case "drive":
          scope.started = await this.#drive(this.#takeLease(scope));
          break;
        case "read_open_turn":
          scope.took_over = await this.#readOpenTurn(this.#takeLease(scope), scope.resolved_here);
          break;
        case "release_lease":
          await this.#release(scope);
          break;
        case "release_parked":
          await this.#release(scope);
          scope.took_over = await this.#recheckParked();
          break;
        case "reread_turn":
          scope.took_over = await this.#takeOverIfAnswered();
          break;
        case "start_next":
          this.wake();
          break;
        case "forget_waiters":
          if (scope.turn) this.context.waiters.abandon(scope.turn);
          break;
        case "apply_queued_stop":
          await applyQueuedStop(this);
          break;
        case "stop_turn":
          await scope.turn?.stop(effect.reason);
          break;
        case "abandon_turn": {
          const { turn } = scope;
          if (!turn) break;
          turn.abandon();
          await turn.finished;
          await turn.releaseLease();
          break;
        }
        default: {
          const unknown: never = effect;
          throw new Error(`Unknown host effect: ${JSON.stringify(unknown)}`);
        }
      }
    }
    return scope;
  }

  /** The `read_queue` effect: a prompt or stop queued takes the lease and drives the session. */
  async #readQueue(scope: EffectScope): Promise<void> {
    let has_work: boolean;
    try {
      has_work = queueNeedsDriver(await this.context.store.listQueuedCommands(this.session_id));
    } catch (error) {
      this.#send({ kind: "lease_refused" });
      throw error;
    }
    await this.#dispatch({ kind: "queue_read", has_work }, scope);
  }

  /**
   * The `acquire_lease` effect; the lifecycle decides what the lease is for. Without it, another
   * live process drives the session.
   */
  async #acquireLease(scope: EffectScope): Promise<void> {
    const lease = await this.context.leases.acquire(this.session_id).catch((error: unknown) => {
      this.context.logger?.warn({ session_id: this.session_id, err: error }, "acquiring the lease failed");
      return null;
    });
    if (!lease) {
      await this.#dispatch({ kind: "lease_refused" }, scope);
      return;
    }
    scope.lease = lease;
    await this.#dispatch({ kind: "lease_acquired" }, scope);
  }

  /** The lease an effect hands on (to a Turn, or to the effects that release it). */
  #takeLease(scope: EffectScope): TurnLease {
    const { lease } = scope;
    if (!lease) throw new Error("A lifecycle effect needs a lease that is not held");
    scope.lease = undefined;
    return lease;
  }

  /** Gives back the Turn's lease (through the Turn), else the one taken while starting. */
  async #release(scope: EffectScope): Promise<void> {
    if (scope.turn) {
      await scope.turn.releaseLease();
      return;
    }
    const { lease } = scope;
    scope.lease = undefined;
    await lease?.release();
  }

  /**
   * The Turn created with the lease runs here (`start` runs it), unless this process shut down
   * meanwhile: then it is abandoned before it writes anything.
   */
  #run(turn: TurnRunner, start: () => void): TurnRunner {
    const effects = this.#send({ kind: "turn_started", turn });
    if (this.#state.kind === "running") start();
    else this.#inBackground(this.#perform(effects, { turn }), "abandoning a Turn at shutdown failed");
    return turn;
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

  get activeTurn(): TurnRunner | undefined {
    return turnOf(this.#state);
  }

  /** Effects that concern the Turn running here now (stop it, abandon it). */
  #activeScope(): EffectScope {
    const turn = this.activeTurn;
    return turn ? { turn } : {};
  }

  get isShutDown(): boolean {
    return this.#state.kind === "shut_down";
  }

  get effective(): SessionConfig {
    return this.#effective;
  }

  set effective(config: SessionConfig) {
    this.#effective = config;
  }

  /** At a checkpoint of the Turn run here (see `commands/set.ts`). */
  applyConfig(command: SetCommand, turn_id: string, epoch: number): Promise<void> {
    return applyConfig(this, command, turn_id, epoch);
  }

  get isClosed(): boolean {
    return this.#state.closed;
  }

  /** Whether this process runs (or is starting) the session's Turn. */
  get ownsTurn(): boolean {
    return ownsTurn(this.#state);
  }

  effectiveMode(): ApprovalMode {
    return this.#effective.approval_mode;
  }

  effectiveAllowances(): ToolAllowance[] {
    return this.#effective.tool_allowances;
  }

  /**
   * The model of the next Step: the agent's model of the effective `model_id` (the agent's own
   * model when the session names none, or one the agent no longer offers).
   */
  stepModel(): LanguageModelV3 {
    const { model_id } = this.#effective;
    if (model_id === null) return this.agent.model;
    const found = this.agent.models?.resolve(model_id);
    if (found) return found.model;
    this.context.logger?.warn(
      { session_id: this.session_id, model_id },
      "the session's model is not offered any more; the agent's default model runs",
    );
    return this.agent.model;
  }

  /** What the session's Actions call a model. */
  modelLabel(model_id: string): string {
    return this.agent.models?.resolve(model_id)?.label ?? model_id;
  }

  get parkWaitingTurns(): boolean {
    return this.context.park_waiting_turns;
  }

  /** `rename()`: the title and its mutation in one revision; no prompt titles the session after it. */
  async rename(title: string): Promise<void> {
    const now = this.context.clock.now();
    await this.writer.commitSessionChange({
      session_patch: { title, updated_at: now },
      mutation: { ...this.writer.newMutationBase(now), variant: "session", type: "title", title },
    });
  }

  /** A handle whose `finished` follows the Turn's committed finish (read only when asked for). */
  turnHandle(turn_id: string): TurnHandle {
    const { store, bus } = this.context;
    const session_id = this.session_id;
    const { closing } = this.context;
    let finished: TurnHandle["finished"] | undefined;
    return {
      id: turn_id,
      get finished() {
        finished ??= waitForTurnFinish({ store, bus, session_id, turn_id, closing });
        return finished;
      },
    };
  }

  /**
   * Queued commands need a driver: a Turn running here reads them at its next checkpoint (a `stop`
   * at once); otherwise this process tries to take the session's lease and drive it. When another
   * live process holds the lease, that process applies them.
   */
  kick(): void {
    this.wake();
  }

  /** `prompt_started`: a prompt committed here started a new Turn (see the `wake` event). */
  wake(prompt_started = false): void {
    const effects = this.#send({ kind: "wake", prompt_started });
    if (effects.length > 0) {
      this.#inBackground(this.#perform(effects, {}), "driving the queued commands failed");
    }
  }

  /**
   * With the session's lease: an open Turn whose owner is gone is resumed (or stopped, when a stop
   * is queued); else a queued stop cancels the queued prompts; else the first queued prompt starts
   * its Turn, after the `set` commands ahead of it. Nothing to do gives the lease back.
   */
  async #drive(lease: TurnLease): Promise<TurnRunner | undefined> {
    try {
      const { commands, record, open } = await this.#readUnderLease();
      await refreshEffective(this, commands, record);
      const plan = planQueue(commands, open, { park_waiting_turns: this.parkWaitingTurns });
      switch (plan.kind) {
        case "stop_open_turn":
          return this.#startStopOfOrphan(lease, plan.message, plan.reason);
        case "park_open_turn":
          await this.#parkFound(lease, plan.message);
          return undefined;
        case "resume_open_turn":
          return this.#startResumed(lease, plan.message, new Set());
        case "cancel_queued":
          await cancelQueuedTurn(this, lease.epoch, plan);
          await this.#dispatch({ kind: "nothing_to_drive" }, { lease });
          return undefined;
        case "nothing":
          await this.#dispatch({ kind: "nothing_to_drive" }, { lease });
          return undefined;
        case "start_turn": {
          const turn = new TurnRunner(this, lease, plan.turn_id);
          return this.#run(turn, () => turn.runNew(plan.prompt, plan.configs));
        }
        default: {
          const unknown: never = plan;
          throw new Error(`Unknown queue plan: ${JSON.stringify(unknown)}`);
        }
      }
    } catch (error) {
      await this.#dispatch({ kind: "start_failed" }, { lease });
      throw error;
    }
  }

  /** Resumes the Turn of `message` while holding `lease` (docs/behaviour.md#durability). */
  #startResumed(lease: TurnLease, message: AssistantMessage, resolved_here: ReadonlySet<string>): TurnRunner {
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
    return this.#run(turn, () => turn.runResumed(message, resolved_here));
  }

  /**
   * A parked Turn found under the lease is left as rows. Its Turn row says `waiting` from then on
   * (a row that said otherwise, e.g. one written before the row existed, would be read by every
   * recovery pass), then the lease is given back.
   */
  async #parkFound(lease: TurnLease, message: AssistantMessage): Promise<boolean> {
    const active = await this.context.store.getActiveTurn(this.session_id);
    if (message.turn_id && active?.turn_id === message.turn_id && active.state !== "waiting") {
      await this.writer.commitSessionChange({
        epoch: lease.epoch,
        turn: { turn_id: message.turn_id, state: "waiting" },
      });
    }
    return (await this.#dispatch({ kind: "parked_found" }, { lease })).took_over === true;
  }

  /**
   * A Turn whose row says `running` but that has no open message: its holder died after the
   * Turn's `start` and before its first model output was committed (DESIGN §10.7). Nothing of it
   * can be resumed; it ends failed as interrupted, so that its row stops asking for a driver.
   */
  async #startInterruptedStart(lease: TurnLease): Promise<boolean> {
    const active = await this.context.store.getActiveTurn(this.session_id);
    if (active?.state !== "running") return false;
    const turn = new TurnRunner(this, lease, active.turn_id);
    this.#run(turn, () => turn.runInterrupted());
    return true;
  }

  #startStopOfOrphan(lease: TurnLease, message: AssistantMessage, reason: CancelReason): TurnRunner {
    const turn = new TurnRunner(this, lease, message.turn_id ?? "");
    return this.#run(turn, () => turn.runStopOfOrphan(message, reason));
  }

  /**
   * Takes the session's lease for a Turn this process is about to resume (a `respond` found no live
   * owner). While claimed, prompts arriving here are committed and wait for that Turn. Null when
   * another live process owns the session.
   */
  async claim(): Promise<TurnLease | null> {
    return (await this.#dispatch({ kind: "claim" })).lease ?? null;
  }

  /** Gives a claim back unused. */
  async unclaim(lease: TurnLease): Promise<void> {
    await this.#dispatch({ kind: "unclaim" }, { lease });
  }

  /**
   * Resumes an open Turn no live process owns. Returns false when there was nothing to resume or
   * another process holds the lease. A lease it took (or was given) and cannot use is released.
   */
  async takeOver(options: { lease?: TurnLease; resolved_here?: ReadonlySet<string> } = {}): Promise<boolean> {
    const { lease, resolved_here } = options;
    const scope = await this.#dispatch(
      { kind: "take_over", with_lease: lease !== undefined },
      { ...(lease ? { lease } : {}), ...(resolved_here ? { resolved_here } : {}) },
    );
    return scope.took_over === true;
  }

  /**
   * The `read_open_turn` effect: the open Turn is resumed, or parked when every open tool waits for
   * a person; a started Turn with no open message ends interrupted. Nothing to do gives the lease
   * back.
   */
  async #readOpenTurn(lease: TurnLease, resolved_here: ReadonlySet<string> = new Set()): Promise<boolean> {
    try {
      const { commands, record, open } = await this.#readUnderLease();
      const message = open[open.length - 1];
      if (message?.type !== "assistant") {
        if (await this.#startInterruptedStart(lease)) return true;
        await this.#dispatch({ kind: "nothing_to_drive" }, { lease });
        return false;
      }
      await refreshEffective(this, commands, record);
      if (this.parkWaitingTurns && planResume(message, resolved_here).kind === "parked") {
        return this.#parkFound(lease, message);
      }
      this.#startResumed(lease, message, resolved_here);
      return true;
    } catch (error) {
      await this.#dispatch({ kind: "start_failed" }, { lease });
      throw error;
    }
  }

  /**
   * What a new lease holder decides from: the queued commands, the session record and the open
   * messages, read at once (one round trip instead of three in a row; all three were committed
   * before the lease was taken, and nobody else can drive the session while it is held).
   */
  async #readUnderLease(): Promise<{
    commands: SessionCommand[];
    record: SessionRecord | null;
    open: SessionMessage[];
  }> {
    const { store } = this.context;
    const [commands, record, open] = await Promise.all([
      store.listQueuedCommands(this.session_id),
      store.getSession(this.session_id),
      store.listOpenAssistantMessages(this.session_id),
    ]);
    return { commands, record, open };
  }

  /** `takeOver` with a lease already taken, without waiting for it (a `respond` that just committed). */
  takeOverInBackground(options: { lease: TurnLease; resolved_here: ReadonlySet<string> }): void {
    this.#inBackground(this.takeOver(options), "resuming the answered Turn failed");
  }

  turnEnded(turn: TurnRunner): void {
    const parked = turn.parked;
    const effects = this.#send({ kind: "turn_ended", turn, parked });
    if (effects.length === 0) return;
    this.#inBackground(
      this.#perform(effects, { turn }),
      parked ? "resuming an answered Turn failed" : "releasing the lease failed",
    );
  }

  /**
   * No lost wake-up for a parked Turn (docs/behaviour.md#durability). A responder that finds the
   * lease held commits its answer and leaves the resume to the holder; a holder that gives the
   * lease back while the Turn is still open reads the Turn again *after* releasing. One of the two
   * always sees the other: the responder rechecks after its commit (it takes the lease if it is
   * free now), and every release of an open, parked Turn (the `release_parked` effect) is followed
   * by this recheck (so a holder still holding at the responder's attempt reads after the commit).
   * An idle, open host reads the Turn; one running or starting a Turn, closed or shut down does not.
   */
  async #recheckParked(): Promise<boolean> {
    return (await this.#dispatch({ kind: "recheck_parked" })).took_over === true;
  }

  /** The `reread_turn` effect: an open Turn an answer made runnable is taken over. */
  async #takeOverIfAnswered(): Promise<boolean> {
    const open = await this.context.store.listOpenAssistantMessages(this.session_id);
    const message = open[open.length - 1];
    if (message?.type !== "assistant" || planResume(message).kind === "parked") return false;
    return this.takeOver();
  }

  /** After an answer committed without the lease (another holder had it): see `#recheckParked`. */
  resumeIfAnsweredInBackground(): void {
    this.#inBackground(this.#recheckParked(), "resuming an answered Turn failed");
  }

  /** See `CommandHost.requestStop`. */
  async requestStop(reason: CancelReason): Promise<TurnRunner | undefined> {
    return (await this.#dispatch({ kind: "stop_requested", reason }, this.#activeScope())).started;
  }

  async markClosing(): Promise<void> {
    await this.#dispatch({ kind: "close" });
  }

  /** Another process closed the session: a Turn running here stops with `session_disposed`. */
  observeClosed(): void {
    void this.#dispatch({ kind: "closed_elsewhere" }, this.#activeScope());
  }

  /** Shutdown: every Turn here is abandoned without writing and its lease released. */
  async shutdown(): Promise<void> {
    await this.#dispatch({ kind: "shutdown" }, this.#activeScope());
  }
}
