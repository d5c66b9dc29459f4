import type { TurnLease } from "../../ports/turn-lease.js";
import type { AssistantMessage } from "../../schema/messages.js";
import { refreshEffective } from "../commands/set.js";
import type { HeldTurn, LeaseHolder } from "../session/lease-holder.js";
import { type KnownUnderLease, readUnderLease } from "../session/lease-holder.js";
import { failTool } from "../transitions/tool-part-transitions.js";
import type { AssistantTransitionFn } from "../transitions/transition.js";
import { planResume } from "./resume-plan.js";

/*
 * Parking and resume (docs/behaviour.md#durability), in one place. A Turn whose open tools all wait
 * for a person parks (after a short grace held, `ParkGrace`, in which an answer reaches the tool
 * where it runs): it gives the session up and holds no lease, lock or host while it waits, only
 * rows. Whoever commits an answer resumes it by replay (`planResume` decides how), and so does a
 * process that finds an open Turn whose owner is gone.
 *
 * No lost wake-up for a parked Turn: a responder that finds the lease held commits its answer and
 * leaves the resume to the holder; a holder that gives the lease back while the Turn is still open
 * reads the Turn again *after* releasing. One of the two always sees the other: the responder
 * rechecks after its commit (it takes the lease if it is free now), and every release of an open,
 * parked Turn (the host's `release_parked` effect) is followed by `takeOverIfAnswered` (so a holder
 * still holding at the responder's attempt reads after the commit).
 */

export const TOOL_INTERRUPTED = "Tool interrupted by server restart";
export const TURN_INTERRUPTED = "Turn interrupted by server restart";

/**
 * The take-over of an open Turn no live process owns, under `lease`: it is resumed, or parked when
 * every open tool waits for a person; a started Turn with no open message ends interrupted.
 * `resolved_here`: tools this process answered while holding the lease (see `planResume`);
 * `known`: what the answer that claimed the lease committed or read (not read again).
 * Resolves false when there was nothing to resume (the lease is given back).
 */
export async function readOpenTurn(
  holder: LeaseHolder,
  lease: TurnLease,
  resolved_here: ReadonlySet<string> = new Set(),
  known: KnownUnderLease = {},
): Promise<boolean> {
  try {
    const { commands, record, open } = await readUnderLease(holder, known);
    const message = open[open.length - 1];
    if (message?.type !== "assistant") {
      if (await startInterruptedStart(holder, lease)) return true;
      await holder.endStart("nothing_to_drive", lease);
      return false;
    }
    await refreshEffective(holder, commands, record);
    if (holder.parkWaitingTurns && planResume(message, resolved_here).kind === "parked") {
      return parkFound(holder, lease, message);
    }
    startResumed(holder, lease, message, resolved_here);
    return true;
  } catch (error) {
    await holder.endStart("start_failed", lease);
    throw error;
  }
}

/** Resumes the Turn of `message` while holding `lease`. */
export function startResumed(
  holder: LeaseHolder,
  lease: TurnLease,
  message: AssistantMessage,
  resolved_here: ReadonlySet<string>,
): HeldTurn {
  const { context, session_id } = holder;
  context.logger?.info(
    { session_id, turn_id: message.turn_id, epoch: lease.epoch, message_id: message.message_id },
    "resuming a Turn whose owner is gone",
  );
  const turn_id = message.turn_id ?? context.ids.turn(session_id, context.clock.now());
  return holder.startTurn(lease, turn_id, (turn) => turn.runResumed(message, resolved_here));
}

/**
 * A parked Turn found under the lease is left as rows. Its Turn row says `waiting` from then on
 * (a row that said otherwise, e.g. one written before the row existed, would be read by every
 * recovery pass), then the lease is given back (and the Turn read again: no lost wake-up).
 */
export async function parkFound(
  holder: LeaseHolder,
  lease: TurnLease,
  message: AssistantMessage,
): Promise<boolean> {
  const active = await holder.context.store.getActiveTurn(holder.session_id);
  if (message.turn_id && active?.turn_id === message.turn_id && active.state !== "waiting") {
    await holder.writer.commitSessionChange({
      epoch: lease.epoch,
      turn: { turn_id: message.turn_id, state: "waiting" },
    });
  }
  return holder.endStart("parked_found", lease);
}

/**
 * A Turn whose row says `running` but that has no open message: its holder died after the
 * Turn's `start` and before its first model output was committed (DESIGN §10.7). Nothing of it
 * can be resumed; it ends failed as interrupted, so that its row stops asking for a driver.
 */
async function startInterruptedStart(holder: LeaseHolder, lease: TurnLease): Promise<boolean> {
  const active = await holder.context.store.getActiveTurn(holder.session_id);
  if (active?.state !== "running") return false;
  holder.startTurn(lease, active.turn_id, (turn) => turn.runInterrupted());
  return true;
}

/** After a parked Turn's lease was released: an open Turn an answer made runnable is taken over. */
export async function takeOverIfAnswered(holder: LeaseHolder): Promise<boolean> {
  const open = await holder.context.store.listOpenAssistantMessages(holder.session_id);
  const message = open[open.length - 1];
  if (message?.type !== "assistant" || planResume(message).kind === "parked") return false;
  return holder.takeOver();
}

/** What the resumed Turn's runner does for `resumeTurn`. */
export interface ResumingTurn {
  interrupt(): Promise<void>;
  update(message_id: string, transition: AssistantTransitionFn): Promise<unknown>;
  executeTools(message_id: string, tool_call_ids: string[]): Promise<void>;
  loop(firstStep: number): Promise<void>;
}

/**
 * Durable resume of the Turn whose open message is `message`. `resolved_here` names tools this
 * process answered while already holding the lease: they are `running` only because of that answer,
 * so they run again instead of failing as interrupted. So does a `running` tool whose latest
 * Interaction is `resolved` without `resumed_at`: its owner died before handing the answer over, so
 * its code never ran on (the re-run attaches to that answer and runs the side effect once). Any
 * other `running` tool may have done its work already and fails as interrupted.
 */
export async function resumeTurn(
  message: AssistantMessage,
  resolved_here: ReadonlySet<string>,
  turn: ResumingTurn,
): Promise<void> {
  const plan = planResume(message, resolved_here);
  if (plan.kind === "interrupt") {
    await turn.interrupt();
    return;
  }
  const rerun = plan.kind === "resume" ? plan.rerun : [];
  for (const tool_call_id of plan.kind === "resume" ? plan.fail_interrupted : []) {
    await turn.update(message.message_id, (current) => failTool(current, tool_call_id, TOOL_INTERRUPTED));
  }
  if (plan.kind === "parked") {
    for (const part of message.parts)
      if (part.type === "tool" && part.state === "waiting-user") rerun.push(part.tool_call_id);
  }
  await turn.executeTools(message.message_id, rerun);
  const steps = message.parts.filter((part) => part.type === "step-start").length;
  await turn.loop(steps + 1);
}

/**
 * Runs the park check (`check`) once the work in hand settled: the session's writes in flight (the
 * Interaction's commit, which a waiter registers just before), then what is already queued on the
 * event loop (`setImmediate`: the commit's publication, a waiter settled by it). Writes in flight
 * again by then: the verdict says so, and the Turn schedules the next check. Not on a timer: a
 * timer's 1 ms floor, polled while a commit ran, kept a Turn that waits for a person holding its
 * lease a millisecond or more past its last commit; an answer arriving then could not claim the
 * Turn, and committed without the claim, the live Turn committing the hand-over after it (two
 * commits for one answer).
 */
export function scheduleParkCheck(
  writes: { readonly isIdle: boolean; settled(): Promise<void> },
  check: () => void,
): void {
  if (writes.isIdle) setImmediate(check);
  else void writes.settled().then(() => setImmediate(check));
}

/**
 * Whether the running Turn parks now: every tool still running in its Step waits for a person, the
 * writes in flight settled (the Interactions are committed), and the committed message reads
 * `parked` to `planResume` (a registered waiter is not yet a waiting tool: a resumed tool registers
 * before it reads its answer, and an answer may be committed already).
 */
export function parkVerdict(turn: {
  running: boolean;
  running_tools: ReadonlySet<string>;
  waitingTools(): ReadonlySet<string>;
  writes_idle(): boolean;
  committedMessage(): AssistantMessage | undefined;
}): "not_waiting" | "writes_in_flight" | "waiting" {
  if (!turn.running || turn.running_tools.size === 0) return "not_waiting";
  const waiting = turn.waitingTools();
  for (const tool_call_id of turn.running_tools) if (!waiting.has(tool_call_id)) return "not_waiting";
  if (!turn.writes_idle()) return "writes_in_flight";
  const message = turn.committedMessage();
  if (message === undefined || planResume(message).kind !== "parked") return "not_waiting";
  return "waiting";
}
