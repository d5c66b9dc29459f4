/**
 * Ownership of a session's Turn. At most one live process holds a session's lease; it dies with its
 * holder (e.g. a Postgres session-level advisory lock on the holder's own connection). `epoch`
 * grows at every acquisition and every write of the Turn carries it (fencing), so a paused former
 * owner can never write again after another process took over.
 */
export interface TurnLease {
  readonly session_id: string;
  readonly epoch: number;
  /** Aborted when the lease is lost (connection died, taken over); the Turn must stop writing. */
  readonly lost: AbortSignal;
  release(): Promise<void>;
}

/**
 * A session's lock without its epoch write (see `TurnLeaseManager.lock`): the holder's next commit
 * advances the epoch (`SessionCommit.claim`), and `claimed` turns the lock into the lease of that
 * epoch. Released unused, it wrote nothing.
 */
export interface TurnLock {
  readonly session_id: string;
  /** Who holds it, as `SessionCommit.claim.holder` records it in the Turn row. */
  readonly holder_id: string;
  readonly lost: AbortSignal;
  /** The lease, once a commit with `claim` advanced the session's epoch to `epoch`. */
  claimed(epoch: number): TurnLease;
  release(): Promise<void>;
}

export interface TurnLeaseManager {
  /** The lease, or null when another live holder has it. Never waits for a holder to die. */
  acquire(session_id: string): Promise<TurnLease | null>;
  /**
   * The lock alone, or null when another live holder has it: no write, so the commit it is taken
   * for (an answer that claims the Turn, DESIGN §10.6 checkpoint 3) advances the epoch itself and
   * the claim costs no commit of its own.
   */
  lock(session_id: string): Promise<TurnLock | null>;
}
