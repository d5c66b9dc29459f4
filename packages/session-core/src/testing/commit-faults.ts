import type { SessionCommit, SessionStore } from "../ports/session-store.js";

/** A failure the next matching commits raise instead of writing (tests of storage write failures). */
export interface CommitFailureInjection {
  /** Stops failing commits; idempotent. */
  remove(): void;
  /** How many commits this injection has failed so far. */
  readonly hits: number;
}

interface FailureRule {
  error: Error;
  match: (commit: SessionCommit) => boolean;
  remaining: number;
  hits: number;
}

/**
 * Storage write failures for tests, as an adapter around any `SessionStore`: `store` is the
 * wrapped store, whose `commit` raises an injected failure (and writes nothing) when one matches,
 * and passes everything else through unchanged. The store itself knows nothing of faults.
 */
export class CommitFaults {
  readonly store: SessionStore;
  readonly #rules: FailureRule[] = [];

  constructor(inner: SessionStore) {
    this.store = new Proxy(inner, {
      get: (target, property) => {
        const value: unknown = Reflect.get(target, property, target);
        if (property === "commit") {
          return async (commit: SessionCommit) => {
            this.#raiseInjectedFailure(commit);
            return target.commit(commit);
          };
        }
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }

  /**
   * Makes the next `times` commits that `match` (default: every commit) throw `error` and write
   * nothing, as a failed storage write would. The failure is raised before the store sees the
   * commit, so it wins over conflicts.
   */
  inject(options: {
    error: Error;
    match?: (commit: SessionCommit) => boolean;
    times?: number;
  }): CommitFailureInjection {
    const rule: FailureRule = {
      error: options.error,
      match: options.match ?? (() => true),
      remaining: options.times ?? Number.POSITIVE_INFINITY,
      hits: 0,
    };
    this.#rules.push(rule);
    return {
      remove: () => {
        const index = this.#rules.indexOf(rule);
        if (index >= 0) this.#rules.splice(index, 1);
      },
      get hits() {
        return rule.hits;
      },
    };
  }

  /** Fails exactly the next commit that `match`es (default: the next commit) with `error`. */
  failNextCommit(error: Error, match?: (commit: SessionCommit) => boolean): CommitFailureInjection {
    return this.inject(match ? { error, match, times: 1 } : { error, times: 1 });
  }

  #raiseInjectedFailure(commit: SessionCommit): void {
    const rule = this.#rules.find((candidate) => candidate.match(commit));
    if (!rule) return;
    rule.hits += 1;
    rule.remaining -= 1;
    if (rule.remaining <= 0) this.#rules.splice(this.#rules.indexOf(rule), 1);
    throw rule.error;
  }
}
