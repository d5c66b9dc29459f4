import type { SessionCommit } from "../ports/session-store.js";

/** Whether the commit starts, settles or finishes commands (and so reads the session's queue). */
export function hasCommandPart(commit: SessionCommit): boolean {
  return Boolean(commit.settle_commands?.length || commit.ends_turn || commit.starts_turn);
}

/** Whether the store reports the session's queued commands with this commit (see the port). */
export function reportsQueuedCommands(commit: SessionCommit): boolean {
  return commit.report_queued_commands === true && !hasCommandPart(commit);
}
