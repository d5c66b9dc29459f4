import { ParleyError } from "../../errors.js";
import type { TurnLease } from "../../ports/turn-lease.js";
import type { CancelReason } from "../../schema/interaction.js";
import type { SessionRecord } from "../../schema/session.js";
import type { WorkspaceRef } from "../../tools/define-agent-tool.js";
import { applyQueuedStop } from "../commands/stop.js";
import type { RuntimeContext } from "../runtime-context.js";
import { readOpenTurn, takeOverIfAnswered } from "../turn/parking.js";
import { queueNeedsDriver } from "../turn/queue-plan.js";
import { turnHandleOf } from "../turn/turn-finish-watch.js";
import { type TurnHost, TurnRunner } from "../turn/turn-runner.js";
import type { AnswerLock } from "./answer-lock.js";
import { ClaimLease, leaseForStart } from "./claim-lease.js";
import type { EffectScope, TakeOverOptions } from "./effect-scope.js";
import {
  type HostEffect,
  type HostEvent,
  type HostState,
  initialHostState,
  ownsTurn,
  transitionHost,
  turnOf,
} from "./host-lifecycle.js";
import type { HeldTurn, LeaseHolder, StartOutcome } from "./lease-holder.js";
import { driveQueue } from "./queue-driver.js";
import { effectiveConfig } from "./session-config.js";
import type { AgentDefinition, TurnHandle } from "./session-facade.js";
import { SessionSettings } from "./session-settings.js";
import { SessionWriter } from "./session-writer.js";

/**
 * This process's side of one session: its write chain and the Turn it runs (at most one, and only
 * while holding the session's lease). The session's commands (`prompt`, `set`, `stop`) are rows
 * (docs/behaviour.md#commands): any instance commits them, and the instance that runs the Turn
 * applies them at its checkpoints; nothing of a session's queue lives here. Shared by every facade
 * of the session here.
 */
export class SessionHost implements TurnHost, LeaseHolder {
  readonly session_id: string;
  /** The session's owner (it never changes). */
  readonly owner_id: string;
  readonly writer: SessionWriter;
  readonly context: RuntimeContext;
  readonly agent: AgentDefinition;
  readonly workspace: WorkspaceRef | undefined;
  readonly #onIdle: (host: SessionHost) => void;
  readonly settings: SessionSettings;
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
    this.owner_id = record.owner_id;
    this.agent = agent;
    this.workspace = context.resolveWorkspace?.(record);
    this.settings = new SessionSettings({
      effective: effectiveConfig(record),
      agent,
      session_id: record.session_id,
      logger: context.logger,
    });
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
          scope.started = await driveQueue(this, this.#takeLease(scope));
          break;
        case "read_open_turn":
          scope.took_over = await readOpenTurn(
            this,
            this.#takeLease(scope),
            scope.resolved_here,
            scope.known,
          );
          break;
        case "release_lease":
          await this.#release(scope);
          break;
        case "release_parked":
          await this.#release(scope);
          scope.took_over = await this.#recheckParked();
          break;
        case "reread_turn":
          scope.took_over = await takeOverIfAnswered(this);
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
    const claim = this.#state.kind === "starting" && this.#state.purpose === "claim";
    const answer_lock = claim ? scope.answer_lock : undefined;
    scope.answer_lock = undefined;
    const lease = await leaseForStart(this.context.leases, this.session_id, claim, answer_lock).catch(
      (error: unknown) => {
        this.context.logger?.warn({ session_id: this.session_id, err: error }, "acquiring the lease failed");
        return null;
      },
    );
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
  startTurn(lease: TurnLease, turn_id: string, start: (turn: HeldTurn) => void): TurnRunner {
    const turn = new TurnRunner(this, lease, turn_id);
    const effects = this.#send({ kind: "turn_started", turn });
    if (this.#state.kind === "running") start(turn);
    else this.#inBackground(this.#perform(effects, { turn }), "abandoning a Turn at shutdown failed");
    return turn;
  }

  async endStart(outcome: StartOutcome, lease: TurnLease): Promise<boolean> {
    return (await this.#dispatch({ kind: outcome }, { lease })).took_over === true;
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

  get isClosed(): boolean {
    return this.#state.closed;
  }

  /** Whether this process runs (or is starting) the session's Turn. */
  get ownsTurn(): boolean {
    return ownsTurn(this.#state);
  }

  get parkWaitingTurns(): boolean {
    return this.context.park_waiting_turns;
  }

  turnHandle(turn_id: string): TurnHandle {
    const { store, bus, closing } = this.context;
    return turnHandleOf({ store, bus, session_id: this.session_id, turn_id, closing });
  }

  /**
   * Queued commands need a driver: a Turn running here reads them at its next checkpoint (a `stop`
   * at once); otherwise this process tries to take the session's lease and drive it. When another
   * live process holds the lease, that process applies them. `prompt_started`: a prompt committed
   * here started a new Turn (see the `wake` event).
   */
  wake(prompt_started = false): void {
    const effects = this.#send({ kind: "wake", prompt_started });
    if (effects.length > 0) {
      this.#inBackground(this.#perform(effects, {}), "driving the queued commands failed");
    }
  }

  /**
   * Takes the session's lock for a Turn this process is about to resume (a `respond` found no live
   * owner); the answer's commit claims the Turn with it (`ClaimLease`). While claimed, prompts
   * arriving here are committed and wait for that Turn. Null when another live process owns it.
   * `answer_lock`: the lock the answer asked for while reading, taken instead of asking again (left
   * to its starter when this host is not idle).
   */
  async claim(answer_lock?: AnswerLock): Promise<ClaimLease | null> {
    const { lease } = await this.#dispatch({ kind: "claim" }, answer_lock ? { answer_lock } : {});
    if (lease === undefined) return null;
    if (!(lease instanceof ClaimLease)) throw new Error("A claim took a lease that is not a ClaimLease");
    return lease;
  }

  /** Gives a claim back unused; `drive_queue: false` when nothing queued needs this process. */
  async unclaim(lease: TurnLease, options: { drive_queue?: false } = {}): Promise<void> {
    await this.#dispatch({ kind: "unclaim", ...options }, { lease });
  }

  /**
   * Resumes an open Turn no live process owns. Returns false when there was nothing to resume or
   * another process holds the lease. A lease it took (or was given) and cannot use is released.
   */
  async takeOver(options: TakeOverOptions = {}): Promise<boolean> {
    const scope = await this.#dispatch(
      { kind: "take_over", with_lease: options.lease !== undefined },
      { ...options },
    );
    return scope.took_over === true;
  }

  /** `takeOver` with a lease already taken, without waiting for it (a `respond` that just committed). */
  takeOverInBackground(options: TakeOverOptions & { lease: TurnLease }): void {
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
   * No lost wake-up for a parked Turn (see `turn/parking.ts`): an idle, open host reads the Turn
   * again; one running or starting a Turn, closed or shut down does not.
   */
  async #recheckParked(): Promise<boolean> {
    return (await this.#dispatch({ kind: "recheck_parked" })).took_over === true;
  }

  /** After an answer committed without the lease (another holder had it): see `#recheckParked`. */
  resumeIfAnsweredInBackground(): void {
    this.#inBackground(this.#recheckParked(), "resuming an answered Turn failed");
  }

  /** See `CommandHost.requestStop`. */
  async requestStop(reason: CancelReason): Promise<HeldTurn | undefined> {
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
