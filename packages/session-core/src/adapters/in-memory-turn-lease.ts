import type { TurnLease, TurnLeaseManager, TurnLock } from "../ports/turn-lease.js";
import type { LeaseEpochSink } from "./in-memory-session-store.js";

interface HeldLease {
  process_id: string;
  epoch: number;
  controller: AbortController;
}

/**
 * The lease table shared by simulated processes of one test: what Postgres advisory locks plus the
 * sessions' epoch column are across real processes. Each simulated process gets its own
 * `TurnLeaseManager` view with `forProcess(id)`; `killProcess(id)` is that process dying: its leases
 * vanish at once (their `lost` signals fire) and its view can never acquire again. The epoch of a
 * session grows at every acquisition and is written to the `epochs` sink (the store) before the
 * lease is handed out, so once another process took a session over, every commit the former holder
 * still attempts with its old epoch is rejected as `fenced`.
 *
 * ```ts
 * const store = new InMemorySessionStore();
 * const leases = new InMemoryLeaseRegistry({ epochs: store });
 * const a = leases.forProcess("A");
 * const b = leases.forProcess("B");
 * const lease = await a.acquire("s1");   // epoch 1
 * leases.killProcess("A");               // lease.lost is aborted
 * await b.acquire("s1");                 // epoch 2; A's commits with epoch 1 are now fenced
 * ```
 */
export class InMemoryLeaseRegistry {
  readonly #held = new Map<string, HeldLease>();
  readonly #epochs = new Map<string, number>();
  readonly #dead = new Set<string>();
  readonly #sink: LeaseEpochSink | undefined;

  constructor(options: { epochs?: LeaseEpochSink } = {}) {
    this.#sink = options.epochs;
  }

  /** The lease manager of one simulated process. */
  forProcess(process_id: string): InMemoryTurnLeaseManager {
    return new InMemoryTurnLeaseManager(this, process_id);
  }

  /** The process dies: all its leases are lost and its manager refuses to acquire from now on. */
  killProcess(process_id: string): void {
    this.#dead.add(process_id);
    for (const [session_id, held] of this.#held) {
      if (held.process_id === process_id) this.#drop(session_id, held, `process ${process_id} was killed`);
    }
  }

  /**
   * The holder loses one lease while its process lives on (its database connection dropped): `lost`
   * fires and the session is free for anyone, including the same process, to acquire anew.
   */
  loseLease(session_id: string): void {
    const held = this.#held.get(session_id);
    if (held) this.#drop(session_id, held, `lease of session ${session_id} was lost`);
  }

  /** Who holds a session's lease right now, or null. */
  holderOf(session_id: string): { process_id: string; epoch: number } | null {
    const held = this.#held.get(session_id);
    return held ? { process_id: held.process_id, epoch: held.epoch } : null;
  }

  isAlive(process_id: string): boolean {
    return !this.#dead.has(process_id);
  }

  /** @internal The acquisition behind `InMemoryTurnLeaseManager.acquire`. */
  async acquireFor(process_id: string, session_id: string): Promise<TurnLease | null> {
    if (this.#dead.has(process_id)) {
      throw new Error(`Process ${process_id} was killed and cannot acquire leases`);
    }
    if (this.#held.has(session_id)) return null;
    const epoch = (this.#epochs.get(session_id) ?? 0) + 1;
    const held: HeldLease = { process_id, epoch, controller: new AbortController() };
    // Reserved before the first await so that a concurrent acquire sees the session as held.
    this.#held.set(session_id, held);
    this.#epochs.set(session_id, epoch);
    try {
      await this.#sink?.setLeaseEpoch(session_id, epoch, process_id);
    } catch (error) {
      if (this.#held.get(session_id) === held) this.#held.delete(session_id);
      throw error;
    }
    if (this.#held.get(session_id) !== held) {
      // Killed or lost while the epoch was being written: the caller never held it.
      return null;
    }
    return {
      session_id,
      epoch,
      lost: held.controller.signal,
      release: async () => {
        if (this.#held.get(session_id) !== held) return;
        this.#held.delete(session_id);
        this.#sink?.leaseReleased?.(session_id, process_id);
      },
    };
  }

  /**
   * @internal The lock behind `InMemoryTurnLeaseManager.lock`: held at once, with no epoch until the
   * commit that claims it (the store advanced the epoch) hands it to `claimed`.
   */
  lockFor(process_id: string, session_id: string): TurnLock | null {
    if (this.#dead.has(process_id)) {
      throw new Error(`Process ${process_id} was killed and cannot acquire leases`);
    }
    if (this.#held.has(session_id)) return null;
    const held: HeldLease = { process_id, epoch: Number.NaN, controller: new AbortController() };
    this.#held.set(session_id, held);
    const release = async () => {
      if (this.#held.get(session_id) !== held) return;
      this.#held.delete(session_id);
      this.#sink?.leaseReleased?.(session_id, process_id);
    };
    return {
      session_id,
      holder_id: process_id,
      lost: held.controller.signal,
      claimed: (epoch) => {
        held.epoch = epoch;
        this.#epochs.set(session_id, Math.max(epoch, this.#epochs.get(session_id) ?? 0));
        return { session_id, epoch, lost: held.controller.signal, release };
      },
      release,
    };
  }

  #drop(session_id: string, held: HeldLease, reason: string): void {
    this.#held.delete(session_id);
    this.#sink?.leaseReleased?.(session_id, held.process_id);
    held.controller.abort(new Error(reason));
  }
}

/**
 * One simulated process's view of an `InMemoryLeaseRegistry`. A session has at most one live
 * lease: `acquire` answers null while any lease on it is held, including one of this process
 * (leases are not re-entrant). `release` frees the session without firing `lost`.
 */
export class InMemoryTurnLeaseManager implements TurnLeaseManager {
  readonly #registry: InMemoryLeaseRegistry;
  readonly process_id: string;

  constructor(registry: InMemoryLeaseRegistry, process_id: string) {
    this.#registry = registry;
    this.process_id = process_id;
  }

  acquire(session_id: string): Promise<TurnLease | null> {
    return this.#registry.acquireFor(this.process_id, session_id);
  }

  async lock(session_id: string): Promise<TurnLock | null> {
    return this.#registry.lockFor(this.process_id, session_id);
  }
}
