import type { TurnLease } from "../../ports/turn-lease.js";
import type { TurnRunner } from "../turn/turn-runner.js";
import type { AnswerLock } from "./answer-lock.js";
import type { HeldTurn, KnownUnderLease } from "./lease-holder.js";

/**
 * What one run of lifecycle effects works with, and what it leaves for its caller: `lease` is the
 * lease taken while starting (or given by a claim) until it is released or handed to a Turn; `turn`
 * the Turn the effects concern (its own lease is released through it); `started` the Turn a drive
 * started; `took_over` whether an open Turn was taken over.
 */
export interface EffectScope {
  lease?: TurnLease;
  /** The lock a claim takes instead of asking for one (its answer asked while reading). */
  answer_lock?: AnswerLock;
  turn?: TurnRunner;
  resolved_here?: ReadonlySet<string>;
  /** What the answer that claimed the lease committed or read (not read again). */
  known?: KnownUnderLease;
  started?: HeldTurn;
  took_over?: boolean;
}

/** How a take-over starts: with a lease already taken, and what the answer that took it committed. */
export type TakeOverOptions = Pick<EffectScope, "lease" | "resolved_here" | "known">;
