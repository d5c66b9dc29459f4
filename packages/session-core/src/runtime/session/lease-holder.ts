import type { TurnLease } from "../../ports/turn-lease.js";
import type { CancelReason } from "../../schema/interaction.js";
import type { AssistantMessage, SessionMessage } from "../../schema/messages.js";
import type { SessionRecord, TurnResult } from "../../schema/session.js";
import type { PromptCommand, SessionCommand, SetCommand } from "../../schema/session-command.js";
import type { CommandHost } from "../commands/command-host.js";

/** A Turn the lease holder starts here (the host's `TurnRunner`), by how it begins. */
export interface HeldTurn {
  readonly finished: Promise<TurnResult>;
  runNew(prompt: PromptCommand, configs: SetCommand[]): void;
  runPrompted(): void;
  runResumed(message: AssistantMessage, resolved_here: ReadonlySet<string>): void;
  runInterrupted(): void;
  runStopOfOrphan(message: AssistantMessage, reason: CancelReason): void;
}

/** How a start under the lease ended without a Turn running here (see `HostEvent`). */
export type StartOutcome = "nothing_to_drive" | "parked_found" | "start_failed";

/**
 * What the process that took the session's lease works with, of its host: the queue driver
 * (`queue-driver.ts`) and parking and resume (`turn/parking.ts`) decide what the lease is for, the
 * host keeps the lifecycle.
 */
export interface LeaseHolder extends CommandHost {
  readonly parkWaitingTurns: boolean;
  /** Creates the Turn `turn_id` with `lease` and runs it here (`start`), unless shut down meanwhile. */
  startTurn(lease: TurnLease, turn_id: string, start: (turn: HeldTurn) => void): HeldTurn;
  /**
   * Tells the lifecycle the start under `lease` ended with `outcome` and performs what it asks;
   * resolves true when the recheck that follows a parked Turn's release took it over.
   */
  endStart(outcome: StartOutcome, lease: TurnLease): Promise<boolean>;
  /** Take over the open Turn if nobody owns it (see `SessionHost.takeOver`). */
  takeOver(): Promise<boolean>;
}

/**
 * What a new lease holder decides from: the queued commands, the session record and the open
 * messages, read at once (one round trip instead of three in a row; all three were committed
 * before the lease was taken, and nobody else can drive the session while it is held).
 */
export async function readUnderLease(
  holder: LeaseHolder,
  known: KnownUnderLease = {},
): Promise<{
  commands: SessionCommand[];
  record: SessionRecord | null;
  open: SessionMessage[];
}> {
  const { store } = holder.context;
  const [commands, record, open] = await Promise.all([
    known.commands ?? store.listQueuedCommands(holder.session_id),
    known.record ?? store.getSession(holder.session_id),
    known.open ? [known.open] : store.listOpenAssistantMessages(holder.session_id),
  ]);
  return { commands, record, open };
}

/**
 * What a start under the lease already has and does not read again (an answer that claimed the
 * Turn): the open message it committed, the session record and the queued commands it read while
 * taking the lock. A command queued after that read waits for the Turn's next checkpoint, or for the
 * liveness pass (a stop), as one queued while another process holds the Turn does.
 */
export interface KnownUnderLease {
  open?: AssistantMessage;
  record?: SessionRecord;
  /** A read started before the commit (the resume awaits it, not the answer's caller). */
  commands?: Promise<SessionCommand[]>;
}
