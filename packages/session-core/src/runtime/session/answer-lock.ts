import type { RuntimeLogger } from "../../ports/logger.js";
import type { TurnLease, TurnLeaseManager, TurnLock } from "../../ports/turn-lease.js";
import type { SessionRecord } from "../../schema/session.js";

/**
 * What an answer's lock needs of the process's session hosts (`SessionHosts`), named here so that
 * this file, which the facade's types name, depends on ports only.
 */
export interface AnswerLockHosts {
  readonly context: { readonly leases: TurnLeaseManager; readonly logger?: RuntimeLogger | undefined };
  peek(session_id: string): { readonly ownsTurn: boolean } | undefined;
  use<T>(
    session_id: string,
    work: (host: {
      claim(answer_lock: AnswerLock): Promise<TurnLease | null>;
      unclaim(lease: TurnLease): Promise<void>;
    }) => Promise<T>,
    record?: SessionRecord,
  ): Promise<T>;
}

/**
 * The session's lock, asked for while an answer's context is read (DESIGN §10.6 checkpoint 3): an
 * answer that resumes a parked Turn claims it with this lock (`SessionHost.claim`), so the lock's
 * round trip runs beside the read instead of after it. Started only when no host of this process
 * owns the session's Turn (one that does holds the lock already, and the answer claims nothing).
 *
 * Whoever started it `settle`s it once the answer is done: a lock the claim did not take is given
 * back. While it was held here, a start of this process was refused the lock, or an answer committed
 * without it; so the release goes through the session's host, as a claim given back unused
 * (`claim` + `unclaim`), which reads the Turn and the queue again (no lost wake-up).
 */
export class AnswerLock {
  readonly #hosts: AnswerLockHosts;
  readonly #session_id: string;
  readonly #locking: Promise<TurnLock | null>;
  #taken = false;

  private constructor(hosts: AnswerLockHosts, session_id: string) {
    this.#hosts = hosts;
    this.#session_id = session_id;
    const { leases, logger } = hosts.context;
    this.#locking = leases.lock(session_id).catch((error: unknown) => {
      // As a claim's failed acquisition: the answer commits without claiming the Turn.
      logger?.warn({ session_id, err: error }, "locking the session for an answer failed");
      return null;
    });
  }

  /** The lock asked for now, unless a host of this process owns the session's Turn. */
  static start(hosts: AnswerLockHosts, session_id: string): AnswerLock | undefined {
    if (hosts.peek(session_id)?.ownsTurn) return undefined;
    return new AnswerLock(hosts, session_id);
  }

  get session_id(): string {
    return this.#session_id;
  }

  /** The lock (null: held elsewhere), for the claim that takes it; its lease releases it from then on. */
  take(): Promise<TurnLock | null> {
    if (this.#taken) throw new Error(`The answer lock of session ${this.#session_id} was taken already`);
    this.#taken = true;
    return this.#locking;
  }

  /**
   * Gives the lock back unless a claim took it. `session`: the session's record as the answer read
   * it (null when it found none: no host to ask, nothing of the session to read again).
   */
  async settle(session: SessionRecord | null): Promise<void> {
    if (this.#taken) return;
    const lock = await this.#locking;
    if (this.#taken || lock === null) return;
    if (session !== null) {
      try {
        await this.#hosts.use(
          this.#session_id,
          async (host) => {
            const lease = await host.claim(this);
            if (lease) await host.unclaim(lease);
          },
          session,
        );
      } catch (error) {
        this.#hosts.context.logger?.warn(
          { session_id: this.#session_id, err: error },
          "giving back an answer's lock through the session's host failed",
        );
      }
    }
    if (this.#taken) return;
    this.#taken = true;
    try {
      await lock.release();
    } catch (error) {
      // Settled after the answer's own outcome, which this must not hide; a lock whose connection
      // failed is gone with it.
      this.#hosts.context.logger?.warn(
        { session_id: this.#session_id, err: error },
        "releasing an answer's lock failed",
      );
    }
  }
}
