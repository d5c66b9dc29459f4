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

export interface TurnLeaseManager {
  /** The lease, or null when another live holder has it. Never waits for a holder to die. */
  acquire(session_id: string): Promise<TurnLease | null>;
}
