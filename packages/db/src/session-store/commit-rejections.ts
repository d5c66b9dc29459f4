import { ParleyError, type SessionCommit, StoreConflictError } from "@parley/session-core";
import { Prisma } from "@prisma/client";
import { commandRejectionError, commandRejections, settlementRejections } from "./commit-commands.js";
import { rejectionOf } from "./statement-rejection.js";

// Why a revision statement (see `revisionStatement`) was refused: the SQL that raises it and the
// typed error each reason becomes.

/**
 * Why a revision was rejected, computed inside the statement only on that path and raised through
 * `parley_reject_commit`, which aborts the statement (nothing of it is written).
 */
export function rejection(commit: SessionCommit, messageWritten: Prisma.Sql): Prisma.Sql {
  const { session_id, epoch, message } = commit;
  const messageReason = !message
    ? Prisma.sql`'unreachable'`
    : message.expected_revision > 0
      ? Prisma.sql`'revision'`
      : Prisma.sql`CASE WHEN EXISTS (SELECT 1 FROM messages WHERE session_id = ${session_id}
                                         AND message_id = ${message.snapshot.message_id})
                         THEN 'message_exists' ELSE 'sequence' END`;
  // An interaction id is one interaction in one session: reusing another session's is refused.
  const interaction_ids = (commit.interactions ?? []).map((record) => record.interaction.interaction_id);
  const foreignInteraction =
    interaction_ids.length === 0
      ? Prisma.empty
      : Prisma.sql`
      WHEN EXISTS (SELECT 1 FROM interactions WHERE interaction_id IN (${Prisma.join(interaction_ids)})
                      AND session_id <> ${session_id})
        THEN parley_reject_commit('foreign_interaction')`;
  // The session row as this statement's snapshot saw it: when it would have been updated, a write
  // committed after the snapshot changed it (a close, a claim, or any write of a revision that reads
  // commands: see `snapshotIsLatest`), and the revision goes again with the row locked first.
  return Prisma.sql`CASE
      WHEN NOT EXISTS (SELECT 1 FROM updated) THEN parley_reject_commit(
        COALESCE((SELECT CASE WHEN closed_at IS NOT NULL THEN 'closed'
                              WHEN ${epoch ?? null}::int IS NOT NULL AND lease_epoch <> ${epoch ?? null}::int
                                THEN 'fenced:' || lease_epoch::text
                              ELSE 'stale' END
                    FROM sessions WHERE session_id = ${session_id}),
                 'session_not_found'))${commandRejections(commit)}
      WHEN NOT ${messageWritten} THEN parley_reject_commit(${messageReason})${foreignInteraction}${settlementRejections(commit)}
      ELSE TRUE END`;
}

/** The typed error for a rejection raised by the statement; any other error is returned as is. */
export function rejectionError(error: unknown, commit: SessionCommit): unknown {
  const rejection = rejectionOf(error);
  if (!rejection) return error;
  const { session_id, epoch, message } = commit;
  const message_id = message?.snapshot.message_id;
  const commandConflict = commandRejectionError(rejection.reason, commit);
  if (commandConflict) return commandConflict;
  switch (rejection.reason) {
    case "stale":
      return new StaleSnapshot(session_id);
    case "session_not_found":
      return new ParleyError("session_not_found", `Session not found: ${session_id}`);
    case "closed":
      // A closed session is never resumed: its writes fail in the store (docs/behaviour.md#close).
      return new ParleyError("session_closed", `Session is closed: ${session_id}`);
    case "fenced":
      return new StoreConflictError(
        "fenced",
        `Session ${session_id} is leased at epoch ${rejection.detail}; the writer holds epoch ${epoch}`,
      );
    case "revision":
      return new StoreConflictError(
        "revision",
        `Message ${message_id} is no longer at revision ${message?.expected_revision}`,
      );
    case "message_exists":
      return new StoreConflictError("revision", `Message already exists: ${message_id}`);
    case "sequence":
      return new StoreConflictError(
        "sequence",
        `Sequence ${message?.snapshot.sequence} of session ${session_id} is taken (message ${message_id})`,
      );
    case "foreign_interaction":
      return new ParleyError(
        "invalid_input",
        `Commit for session ${session_id} carries an interaction of another session: ${(
          commit.interactions ?? []
        )
          .map((record) => record.interaction.interaction_id)
          .join(", ")}`,
      );
    default:
      return error;
  }
}

/**
 * A revision whose snapshot predates a write of its session row that committed while it waited for
 * that row (see `snapshotIsLatest`): it wrote nothing, and goes again with the row locked first.
 */
export class StaleSnapshot extends Error {
  constructor(session_id: string) {
    super(`The session row of ${session_id} changed after the revision's snapshot`);
    this.name = "StaleSnapshot";
  }
}
