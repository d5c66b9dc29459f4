import { StoreConflictError } from "../../errors.js";
import type { TurnLease } from "../../ports/turn-lease.js";
import type { CancelReason } from "../../schema/interaction.js";
import type { AssistantMessage } from "../../schema/messages.js";
import type { TurnResult } from "../../schema/session.js";
import type { PromptCommand, SetCommand } from "../../schema/session-command.js";
import type { CommandHost } from "../commands/command-host.js";
import { applyConfig } from "../commands/set.js";
import { TURN_STOPPED, writeStoppedFinish } from "../commands/stop.js";
import type { SessionSettings } from "../session/session-settings.js";
import { TurnFencedError } from "../session/session-writer.js";
import { applyCheckpoint } from "./checkpoint.js";
import { requestModel } from "./model-request.js";
import { OpenSegment } from "./open-segment.js";
import { parkVerdict, resumeTurn, scheduleParkCheck } from "./parking.js";
import { StepTools } from "./step-tools.js";
import type { ToolCallHost } from "./tool-call-host.js";
import {
  type FinishingTurn,
  writeCompletedFinish,
  writeFailedFinish,
  writeInterruptedFinish,
} from "./turn-finishes.js";
import {
  GIVEN_UP_ERROR,
  initialTurnState,
  type TurnEvent,
  type TurnState,
  transitionTurn,
} from "./turn-lifecycle.js";
import { TurnRecords } from "./turn-records.js";

/** A Turn ends after this many Steps even if the model keeps calling tools. */
export const MAX_STEPS = 25;

/** What a Turn needs from its session's host in this process. */
export interface TurnHost extends ToolCallHost, CommandHost {
  /** The session's effective settings (read again after each checkpoint) and the Step's model. */
  readonly settings: SessionSettings;
  /**
   * Whether a Turn whose open tools all wait for a person gives the session back
   * (docs/behaviour.md#durability).
   */
  readonly parkWaitingTurns: boolean;
  turnEnded(turn: TurnRunner): void;
}

/** Raised inside the loop once the Turn was stopped or abandoned; never escapes the runner. */
class TurnEnded extends Error {}

/**
 * One Turn: Steps of "checkpoint → one model request → the Step's tools", driven by this process
 * while it holds the session's lease, every write fenced with the lease's epoch
 * (docs/behaviour.md#durability). It ends completed (the model answered without tool calls), failed
 * (provider error), stopped (`stop`/`close`), or abandoned without writing (lease lost, fenced,
 * shutdown).
 */
export class TurnRunner {
  readonly turn_id: string;
  /** Where the Turn is in its life; changed only by `#dispatch` (see turn-lifecycle.ts). */
  #state: TurnState = initialTurnState;
  readonly #markFinished = (): void => {
    void this.#dispatch({ kind: "finish_committed" });
  };
  readonly finished: Promise<TurnResult>;
  readonly #host: TurnHost;
  readonly #lease: TurnLease;
  readonly #abort = new AbortController();
  #resolveFinished!: (result: TurnResult) => void;
  #signalEnded!: () => void;
  readonly #ended: Promise<void>;
  readonly #segment: OpenSegment;
  readonly #tools: StepTools;
  #lastText = "";
  readonly #records: TurnRecords;
  readonly #unwatch: () => void;
  /** Ends the grace this Turn waits held in, if any (see `ParkGrace`). */
  #endGrace: () => void = () => undefined;

  constructor(host: TurnHost, lease: TurnLease, turn_id: string) {
    this.#host = host;
    this.#lease = lease;
    this.turn_id = turn_id;
    this.#records = new TurnRecords({
      writer: host.writer,
      ids: host.context.ids,
      now: () => host.context.clock.now(),
      turn_id,
      epoch: lease.epoch,
    });
    this.#segment = new OpenSegment({
      writer: host.writer,
      ids: host.context.ids,
      session_id: host.session_id,
      turn_id,
      epoch: lease.epoch,
    });
    this.#tools = new StepTools({
      host,
      owner: this,
      turn_id,
      epoch: lease.epoch,
      segment: this.#segment,
      abort_signal: this.#abort.signal,
      raceEnded: (work) => this.#raceEnded(work),
      onToolEnded: () => this.#maybePark(),
    });
    this.finished = new Promise((resolve) => {
      this.#resolveFinished = resolve;
    });
    this.#ended = new Promise((resolve) => {
      this.#signalEnded = resolve;
    });
    this.#unwatch = host.context.waiters.watch(this, () => this.#maybePark());
    if (lease.lost.aborted) queueMicrotask(() => this.abandon());
    else lease.lost.addEventListener("abort", () => this.abandon(), { once: true });
  }

  get epoch(): number {
    return this.#lease.epoch;
  }

  /**
   * It gave the session up because every open tool waits for a person
   * (docs/behaviour.md#durability).
   */
  get parked(): boolean {
    return this.#state.kind === "ended" && this.#state.why === "parked";
  }

  /** Gives the lease back once (the Turn ended or the process shuts down). */
  releaseLease(): Promise<void> {
    return this.#dispatch({ kind: "release" });
  }

  /** Stops the Turn (docs/behaviour.md#commands); resolves once it finished. */
  stop(reason: CancelReason): Promise<TurnResult> {
    void this.#dispatch({ kind: "stop", reason });
    return this.finished;
  }

  /** Gives the session up without another write (lease lost, fenced, shutdown). */
  abandon(): void {
    void this.#dispatch({ kind: "abandon" });
  }

  /**
   * Moves the Turn to its next state and performs the effects the lifecycle asks for, in order; the
   * returned promise settles once the asynchronous ones (a write, the release) are done. `failure`
   * is what the failed finish records.
   */
  #dispatch(event: TurnEvent, failure?: unknown): Promise<void> {
    const { state, effects } = transitionTurn(this.#state, event);
    this.#state = state;
    let pending: Promise<void> | undefined;
    const then = (work: () => Promise<void>): void => {
      pending = pending ? pending.then(work) : work();
    };
    for (const effect of effects) {
      switch (effect.kind) {
        case "abort":
          this.#abort.abort(new Error(effect.why === "stopped" ? TURN_STOPPED : "Turn abandoned"));
          this.#signalEnded();
          break;
        case "forget_waiters":
          this.#host.context.waiters.abandon(this);
          break;
        case "schedule_park_check":
          scheduleParkCheck(this.#host.writer, () => void this.#dispatch(this.#parkChecked()));
          break;
        case "hold_for_grace":
          this.#endGrace = this.#host.context.park_grace.hold(this, () => {
            void this.#dispatch({ kind: "grace_over" });
          });
          break;
        case "write_failed_finish":
          then(async () => this.#written(await writeFailedFinish(this.#finishing(), failure)));
          break;
        case "write_stopped_finish": {
          const { reason } = effect;
          then(async () => this.#written(await writeStoppedFinish(this.#finishing(), reason)));
          break;
        }
        case "settle":
          this.#deliver(effect.result);
          break;
        case "settle_given_up":
          this.#deliver({
            turn_id: this.turn_id,
            text: "",
            success: false,
            error: GIVEN_UP_ERROR[effect.why],
          });
          break;
        case "release_lease":
          then(() =>
            this.#lease.release().catch((error: unknown) => {
              const { logger } = this.#host.context;
              logger?.warn({ session_id: this.#host.session_id, err: error }, "releasing the lease failed");
            }),
          );
          break;
        default: {
          const unknown: never = effect;
          throw new Error(`Unknown turn effect: ${JSON.stringify(unknown)}`);
        }
      }
    }
    return pending ?? Promise.resolve();
  }

  /** Whether the Turn stopped or gave the session up: its loop and tools unwind. */
  #hasEnded(): boolean {
    return this.#abort.signal.aborted;
  }

  /** A new Turn: the `set` commands queued ahead of its prompt, its prompt, then Steps. */
  runNew(prompt: PromptCommand, configs: SetCommand[]): void {
    void this.#guard(async () => {
      // Without queued `set`s in between, the Turn's start and its prompt are one commit.
      const startsWithPrompt = configs.length === 0;
      if (!startsWithPrompt) await this.#records.turnMutation({ type: "start", status: "running" });
      for (const command of configs) await applyConfig(this.#host, command, this.turn_id, this.epoch);
      await this.#records.userMessage(prompt.input.query, "prompt", prompt.command_id, {
        starts_turn: startsWithPrompt,
      });
      await this.#loop(1);
    });
  }

  /** A new Turn whose prompt's commit already wrote its user message and start (`startPromptHere`). */
  runPrompted(): void {
    void this.#guard(() => this.#loop(1));
  }

  /** Durable resume of the Turn whose open message is `message` (see `resumeTurn`, parking.ts). */
  runResumed(message: AssistantMessage, resolved_here: ReadonlySet<string>): void {
    this.#segment.continueFrom(message);
    void this.#guard(() =>
      resumeTurn(message, resolved_here, {
        interrupt: () => this.#interrupt(),
        update: (message_id, transition) => this.#segment.update(message_id, transition),
        executeTools: (message_id, tool_call_ids) => this.#tools.execute(message_id, tool_call_ids),
        loop: (firstStep) => this.#loop(firstStep),
      }),
    );
  }

  /** A started Turn whose owner died before any of its model output was committed ends interrupted. */
  runInterrupted(): void {
    void this.#guard(() => this.#interrupt());
  }

  /**
   * The owner of `message` is gone and the session is being stopped or closed: cancel its pending
   * Interactions and close it `stopped`, without running anything.
   */
  runStopOfOrphan(message: AssistantMessage, reason: CancelReason): void {
    this.#segment.continueFrom(message);
    void this.#dispatch({ kind: "stop", reason });
    void this.#guard(async () => undefined);
  }

  /** Runs the Turn's loop, then writes the end the lifecycle asks for (a failed or stopped finish). */
  async #guard(body: () => Promise<void>): Promise<void> {
    let threw = false;
    let failure: unknown;
    try {
      await body();
    } catch (error) {
      threw = true;
      failure = error;
      if (error instanceof TurnFencedError) this.abandon();
    }
    await this.#dispatch({ kind: "loop_exited", threw }, failure);
    this.#host.turnEnded(this);
  }

  #throwIfEnded(): void {
    if (this.#hasEnded()) throw new TurnEnded();
  }

  async #loop(firstStep: number): Promise<void> {
    for (let step = firstStep; ; step += 1) {
      this.#throwIfEnded();
      await applyCheckpoint({
        turn_id: this.turn_id,
        epoch: this.epoch,
        host: this.#host,
        segment: this.#segment,
        records: this.#records,
        stopHere: (reason) => {
          void this.stop(reason);
          this.#throwIfEnded();
        },
      });
      this.#throwIfEnded();
      this.#tools.captureSettings();
      const tool_calls = await this.#runStep();
      this.#throwIfEnded();
      if (tool_calls > 0 && step < MAX_STEPS) continue;
      try {
        this.#written(await writeCompletedFinish(this.#finishing(), this.#lastText));
        return;
      } catch (error) {
        // A prompt queued for this Turn refuses its finish (the store checks in the finish's own
        // commit, so no read before it): it joins as a steer at the next checkpoint
        // (docs/behaviour.md#turn-and-step).
        if (!(error instanceof StoreConflictError) || error.kind !== "queued") throw error;
        this.#segment.endSegment();
      }
    }
  }

  /** One model request and the tools it called; returns how many tool calls the model made. */
  async #runStep(): Promise<number> {
    const answer = await requestModel({
      host: this.#host,
      segment: this.#segment,
      abort_signal: this.#abort.signal,
      raceEnded: (work) => this.#raceEnded(work),
      throwIfEnded: () => this.#throwIfEnded(),
    });
    this.#lastText = answer.text;
    if (answer.message_id === undefined) return 0;
    await this.#tools.execute(answer.message_id, answer.ready);
    return answer.tool_calls;
  }

  async #raceEnded<T>(work: Promise<T>): Promise<T> {
    work.catch(() => undefined);
    const ended = this.#ended.then((): never => {
      throw new TurnEnded();
    });
    return Promise.race([work, ended]);
  }

  /**
   * When every tool still running in this Step waits for a person, the Turn parks — it holds no
   * lease, lock or host while it waits (docs/behaviour.md#durability). Checked once the writes in
   * flight settled (the Interactions are committed), so what the Turn leaves behind reads `parked`
   * to `planResume`.
   */
  #maybePark(): void {
    if (this.#host.parkWaitingTurns) void this.#dispatch({ kind: "park_wanted" });
  }

  /** What the scheduled park check finds (the lifecycle ignores it once the Turn ended). */
  #parkChecked(): TurnEvent {
    const { writer, context } = this.#host;
    const verdict = parkVerdict({
      running: this.#state.kind === "running",
      running_tools: this.#tools.running,
      waitingTools: () => context.waiters.waitingTools(this),
      writes_idle: () => writer.isIdle,
      committedMessage: () => {
        const { messageId } = this.#segment;
        // What a process taking the Turn over would read: the committed copy, not the live one.
        return messageId === undefined ? undefined : writer.committed(messageId);
      },
    });
    return { kind: "park_checked", verdict, grace: context.park_grace.hasRoom };
  }

  /** A Step whose stream was cut by a crash is not replayed (docs/behaviour.md#durability). */
  async #interrupt(): Promise<void> {
    this.#written(await writeInterruptedFinish(this.#finishing()));
  }

  /** What the Turn's end is written with (see `turn-finishes.ts`). */
  #finishing(): FinishingTurn {
    const { session_id, context, writer } = this.#host;
    return {
      turn_id: this.turn_id,
      session_id,
      context,
      writer,
      segment: this.#segment,
      records: this.#records,
      markFinished: this.#markFinished,
    };
  }

  /** The Turn's end is written (or writing it failed and was logged): deliver `result`. */
  #written(result: TurnResult): void {
    void this.#dispatch({ kind: "finish_written", result });
  }

  /** The `settle` effects: the watch ends, the host learns the Turn ended, `finished` resolves. */
  #deliver(result: TurnResult): void {
    this.#unwatch();
    this.#endGrace();
    // The session is idle for anyone who awaited `finished`.
    this.#host.turnEnded(this);
    this.#resolveFinished(result);
  }
}
