import type { Clock, IdSource } from "../ports/clock.js";
import { T0 } from "./fixtures.js";

/** A clock that moves only when the test moves it. */
export interface TestClock extends Clock {
  /** Moves the clock forward by `ms` and returns the new time. */
  advance(ms: number): number;
  set(now: number): void;
}

export function createTestClock(start = T0): TestClock {
  let now = start;
  return {
    now: () => now,
    advance(ms) {
      now += ms;
      return now;
    },
    set(value) {
      now = value;
    },
  };
}

/**
 * Ids `000001`, `000002` … : deterministic, and their string order is their creation order, so
 * ties broken by id (e.g. interactions created in the same millisecond) follow creation.
 */
export function createSequentialIds(width = 6): IdSource & { readonly issued: number } {
  let issued = 0;
  return {
    next() {
      issued += 1;
      return String(issued).padStart(width, "0");
    },
    get issued() {
      return issued;
    },
  };
}
