import { afterEach, beforeEach, describe } from "vitest";
import type { SessionStore } from "../ports/session-store.js";
import type { TurnLeaseManager } from "../ports/turn-lease.js";
import { describeCommandConformance } from "./conformance/command-cases.js";
import { describeCommitConformance } from "./conformance/commit-cases.js";
import type { ConformanceContext } from "./conformance/context.js";
import { describeCrossSessionConformance } from "./conformance/cross-session-cases.js";
import { describeCursorConformance } from "./conformance/cursor-cases.js";
import { describeEventConformance } from "./conformance/event-cases.js";
import { describeInteractionConformance } from "./conformance/interaction-cases.js";
import { describeLivenessConformance } from "./conformance/liveness-cases.js";
import { describeMessageConformance } from "./conformance/message-cases.js";
import { describePartConformance } from "./conformance/part-cases.js";
import { describeQueuedPromptConformance } from "./conformance/queued-prompt-cases.js";
import { describeSessionConformance } from "./conformance/session-cases.js";
import { describeTurnConformance } from "./conformance/turn-cases.js";
import { describeTurnStartConformance } from "./conformance/turn-start-cases.js";

/** One store under test, fresh and empty for each test case. */
export interface SessionStoreConformanceSubject {
  store: SessionStore;
  /**
   * Sets a session's current fencing epoch, as the subject's lease manager does when it grants a
   * lease. Commits carrying another epoch must then fail with `StoreConflictError("fenced")`.
   */
  setLeaseEpoch(session_id: string, epoch: number): Promise<void>;
  /**
   * A lease manager over the same storage, as a process running the store would have: a session
   * whose lease it holds has a live holder (its Turn needs no driver), and acquiring records the
   * holder and epoch on the session's unfinished Turn row.
   */
  leases: TurnLeaseManager;
  /** Releases what the factory created (connections, databases). */
  cleanup(): Promise<void>;
}

/**
 * Called before every test case. It must return an EMPTY store: the admin feed, the global
 * interaction query and the session list are asserted exactly.
 */
export type SessionStoreConformanceFactory = () => Promise<SessionStoreConformanceSubject>;

/**
 * The contract of the `SessionStore` port as executable tests (a vitest suite). Every
 * implementation runs it: the in-memory store in this package and the Postgres store in
 * `@parley/db`.
 *
 * It holds every store to the orders of `store/store-order.ts` (written there once), and:
 * - Cursors are opaque; `next_cursor` / `next_before_sequence` are null exactly when nothing follows;
 *   a cursor no store handed out for that list is `invalid_input`.
 * - A commit that is not well-formed (`assertCommitWellFormed`) or that reuses another session's
 *   interaction id is `invalid_input` and writes nothing; no read of one session returns another's rows.
 * - Session event ids are 1, 2, 3 … per session with no gap, even under concurrent commits;
 *   interaction event ids are distinct and increase in commit order across all sessions.
 */
export function runSessionStoreConformance(name: string, factory: SessionStoreConformanceFactory): void {
  describe(`SessionStore conformance: ${name}`, () => {
    let subject: SessionStoreConformanceSubject | undefined;
    const context: ConformanceContext = {
      get store() {
        if (!subject) throw new Error("The conformance subject is only available inside a test");
        return subject.store;
      },
      setLeaseEpoch(session_id, epoch) {
        if (!subject) throw new Error("The conformance subject is only available inside a test");
        return subject.setLeaseEpoch(session_id, epoch);
      },
      get leases() {
        if (!subject) throw new Error("The conformance subject is only available inside a test");
        return subject.leases;
      },
    };

    beforeEach(async () => {
      subject = await factory();
    });
    afterEach(async () => {
      await subject?.cleanup();
      subject = undefined;
    });

    describeCommandConformance(context);
    describeQueuedPromptConformance(context);
    describeSessionConformance(context);
    describeCommitConformance(context);
    describeEventConformance(context);
    describeInteractionConformance(context);
    describeMessageConformance(context);
    describePartConformance(context);
    describeCursorConformance(context);
    describeCrossSessionConformance(context);
    describeTurnConformance(context);
    describeTurnStartConformance(context);
    describeLivenessConformance(context);
  });
}
