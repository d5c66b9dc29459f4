import type { SessionCommit } from "@parley/session-core";

/**
 * Told about every revision the store committed, with the time its one statement took (operators'
 * metrics). Called after the commit returned; it must not throw or block.
 */
export interface CommitObserver {
  committed(commit: SessionCommit, seconds: number): void;
}
