import type { ParleySession, SessionMutation } from "@parley/sdk";

/**
 * Records every mutation a subscription delivers and lets a test wait for one that matches,
 * without timing assumptions (it waits as long as the test's own timeout allows).
 */
export class MutationRecorder {
  readonly mutations: SessionMutation[] = [];
  readonly errors: unknown[] = [];
  private readonly waiters: {
    match: (mutation: SessionMutation) => boolean;
    resolve: (m: SessionMutation) => void;
  }[] = [];
  private unsubscribe: (() => void) | null = null;

  constructor(session: ParleySession, options?: { after_event_id?: number }) {
    this.unsubscribe = session.subscribe((mutation) => this.record(mutation), {
      ...options,
      onError: (error) => this.errors.push(error),
    });
  }

  private record(mutation: SessionMutation): void {
    this.mutations.push(mutation);
    for (const waiter of [...this.waiters]) {
      if (waiter.match(mutation)) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve(mutation);
      }
    }
  }

  /** The first recorded mutation matching, or the next one to arrive. */
  waitFor<M extends SessionMutation>(match: (mutation: SessionMutation) => mutation is M): Promise<M>;
  waitFor(match: (mutation: SessionMutation) => boolean): Promise<SessionMutation>;
  waitFor(match: (mutation: SessionMutation) => boolean): Promise<SessionMutation> {
    const found = this.mutations.find(match);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  eventIds(): number[] {
    return this.mutations.map((mutation) => mutation.event_id);
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }
}

export function isTurnFinish(mutation: SessionMutation): boolean {
  return mutation.variant === "turn" && mutation.type === "finish";
}

/** A `part` mutation of a tool part now in `state`. */
export function isToolState(state: string) {
  return (mutation: SessionMutation): boolean =>
    mutation.variant === "part" && mutation.part.type === "tool" && mutation.part.state === state;
}
