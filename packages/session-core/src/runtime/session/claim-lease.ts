import type { TurnLease, TurnLeaseManager, TurnLock } from "../../ports/turn-lease.js";
import type { AnswerLock } from "./answer-lock.js";

/**
 * The lease a `respond` takes to resume the Turn it answers (DESIGN §10.6 checkpoint 3): only the
 * session's lock at first, so that the answer's own commit advances the epoch (`SessionCommit.claim`)
 * and the claim costs no commit of its own. Its `epoch` exists once that commit told it (`claimed`);
 * released before, it wrote nothing.
 */
export class ClaimLease implements TurnLease {
  readonly #lock: TurnLock;
  #epoch: number | undefined;

  constructor(lock: TurnLock) {
    this.#lock = lock;
  }

  get session_id(): string {
    return this.#lock.session_id;
  }

  /** Who holds it, for the claim's Turn row. */
  get holder_id(): string {
    return this.#lock.holder_id;
  }

  get lost(): AbortSignal {
    return this.#lock.lost;
  }

  get epoch(): number {
    if (this.#epoch === undefined) {
      throw new Error(`The claim of session ${this.session_id} has no epoch before its commit`);
    }
    return this.#epoch;
  }

  /** The commit that claims the Turn advanced the session's epoch to `epoch`. */
  claimed(epoch: number): void {
    this.#lock.claimed(epoch);
    this.#epoch = epoch;
  }

  release(): Promise<void> {
    return this.#lock.release();
  }
}

/**
 * The lease a host's start takes: a claim (a `respond` about to resume the Turn it answers) takes only
 * the lock (the one its answer asked for while reading, if any: `AnswerLock`), every other start
 * the lease with its epoch.
 */
export async function leaseForStart(
  leases: TurnLeaseManager,
  session_id: string,
  claim: boolean,
  answer_lock?: AnswerLock,
): Promise<TurnLease | null> {
  if (!claim) return leases.acquire(session_id);
  if (answer_lock && answer_lock.session_id !== session_id) {
    // Claiming one session with another's lock would leave the Turn unguarded.
    throw new Error(
      `The answer lock of session ${answer_lock.session_id} cannot claim session ${session_id}`,
    );
  }
  // Refused while the answer read (the Turn was still being parked here, say), it is asked for once
  // more: the claim is now, and the holder may have let go since.
  const lock = (answer_lock ? await answer_lock.take() : null) ?? (await leases.lock(session_id));
  return lock ? new ClaimLease(lock) : null;
}
