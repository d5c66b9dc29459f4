import { ParleyError } from "../errors.js";
import type { SessionCommit } from "../ports/session-store.js";

function malformed(commit: SessionCommit, what: string): ParleyError {
  return new ParleyError("invalid_input", `Commit for session ${commit.session_id} ${what}`);
}

/** `changed_part_ids` name parts of an assistant message's snapshot, in a revision after its first. */
function assertChangedPartsWellFormed(commit: SessionCommit, message: NonNullable<SessionCommit["message"]>) {
  const { snapshot, expected_revision, changed_part_ids } = message;
  if (changed_part_ids === undefined) return;
  if (snapshot.type !== "assistant" || expected_revision === 0) {
    throw malformed(
      commit,
      `names changed parts of message ${snapshot.message_id}, which has no stored parts`,
    );
  }
  const ids = new Set(snapshot.parts.map((part) => part.part_id));
  const missing = changed_part_ids.find((part_id) => !ids.has(part_id));
  if (missing !== undefined) {
    throw malformed(
      commit,
      `names changed part ${missing}, which message ${snapshot.message_id} does not hold`,
    );
  }
}

/**
 * The rules of a `SessionCommit` that need no stored state, checked by every store before it
 * writes anything: everything a commit carries belongs to the commit's session, a snapshot is the
 * revision after the one it was based on, and a preceding mutation comes with its mutation. A
 * commit that breaks one is a caller's bug, refused as `invalid_input` on every store alike.
 */
export function assertCommitWellFormed(commit: SessionCommit): void {
  const { session_id, message } = commit;
  if (commit.claim && commit.epoch !== undefined) {
    throw malformed(commit, "both claims the Turn and carries an epoch (a claim advances the epoch)");
  }
  if (commit.starts_turn && commit.claim?.turn_id !== commit.starts_turn.turn_id) {
    throw malformed(commit, `starts Turn ${commit.starts_turn.turn_id} without claiming it`);
  }
  if (message) {
    const { snapshot, expected_revision } = message;
    if (snapshot.session_id !== session_id) {
      throw malformed(commit, `carries message ${snapshot.message_id} of session ${snapshot.session_id}`);
    }
    if (snapshot.revision !== expected_revision + 1) {
      throw malformed(
        commit,
        `carries message ${snapshot.message_id} at revision ${snapshot.revision}, which does not follow expected revision ${expected_revision}`,
      );
    }
    assertChangedPartsWellFormed(commit, message);
  }
  for (const record of commit.interactions ?? []) {
    if (record.session_id !== session_id) {
      throw malformed(
        commit,
        `carries interaction ${record.interaction.interaction_id} of session ${record.session_id}`,
      );
    }
  }
  for (const mutation of [commit.preceding_mutation, commit.mutation]) {
    if (mutation && mutation.session_id !== session_id) {
      throw malformed(commit, `carries a ${mutation.variant} mutation of session ${mutation.session_id}`);
    }
  }
  if (commit.preceding_mutation && !commit.mutation) {
    throw malformed(commit, "carries a preceding mutation without its mutation");
  }
  for (const event of commit.interaction_events ?? []) {
    if (event.session_id !== session_id) {
      throw malformed(
        commit,
        `carries an interaction event for ${event.interaction.interaction_id} of session ${event.session_id}`,
      );
    }
  }
}
