import type { CommitResult, InteractionEvent, SessionEvent } from "@parley/session-core";

/**
 * Lets the store send a revision's NOTIFY from inside the revision's own statement, instead of the
 * bus sending it in a transaction of its own after the commit. Postgres delivers a NOTIFY only when
 * its transaction commits and drops it on rollback, so other processes still hear of nothing before
 * the commit, and a published revision costs one transaction instead of two.
 *
 * The store reports the events it announced (`announced`); the bus then delivers them to this
 * process's listeners and sends no notice of its own for them. An event it was not told about (a
 * store without this object, a copy of the event) gets the bus's notice as before: a redundant
 * notice costs one read, never an event. Only the NOTIFY bus has one (NATS notices do not travel
 * through the database).
 */
export class CommitNotices {
  /** The LISTEN/NOTIFY channel the bus listens on. */
  readonly channel: string;
  readonly #announced = new WeakSet<SessionEvent | InteractionEvent>();

  constructor(channel: string) {
    this.channel = channel;
  }

  /** The store committed these events with their notices (called only after the commit succeeded). */
  announced(result: CommitResult): void {
    if (result.event) this.#announced.add(result.event);
    for (const event of result.interaction_events) this.#announced.add(event);
  }

  wasAnnounced(event: SessionEvent | InteractionEvent): boolean {
    return this.#announced.has(event);
  }
}
