import {
  type CommitResult,
  type InteractionEvent,
  type InteractionRecord,
  ParleyError,
  type SessionCommit,
  type SessionEvent,
  type SessionMessage,
  type SessionMutation,
  StoreConflictError,
} from "@parley/session-core";
import { Prisma } from "@prisma/client";
import { asStoredJson } from "./row-mapping.js";
import { settleCommandsInCommit } from "./session-commands.js";

/**
 * Serialises the commits that append to the global admin feed, from id assignment to COMMIT, so
 * that `interaction_events.event_id` grows in commit order (a reader that saw id N has every id
 * below N). Arbitrary constant; only interaction-changing commits take it.
 */
const INTERACTION_FEED_LOCK_KEY = 7_342_911_002n;

/** Checks that need no database, before a transaction is opened. */
export function assertWellFormed(commit: SessionCommit): void {
  const message = commit.message;
  if (message) {
    if (message.snapshot.session_id !== commit.session_id) {
      throw new Error(
        `Commit for ${commit.session_id} carries a message of ${message.snapshot.session_id}: ${message.snapshot.message_id}`,
      );
    }
    if (message.snapshot.revision !== message.expected_revision + 1) {
      throw new Error(
        `Message ${message.snapshot.message_id}: revision ${message.snapshot.revision} does not follow expected revision ${message.expected_revision}`,
      );
    }
  }
  for (const record of commit.interactions ?? []) {
    if (record.session_id !== commit.session_id) {
      throw new Error(
        `Commit for ${commit.session_id} carries interaction ${record.interaction.interaction_id} of ${record.session_id}`,
      );
    }
  }
}

const PATCHABLE_COLUMNS = [
  "title",
  "approval_mode",
  "effective_approval_mode",
  "closed_at",
  "updated_at",
] as const;

function sessionPatchAssignments(commit: SessionCommit): Prisma.Sql[] {
  const patch = commit.session_patch ?? {};
  return PATCHABLE_COLUMNS.flatMap((column) => {
    const value = patch[column];
    if (value === undefined) return [];
    const isTimestamp = column === "closed_at" || column === "updated_at";
    return [
      Prisma.sql`${Prisma.raw(column)} = ${isTimestamp ? Prisma.sql`${value}::bigint` : Prisma.sql`${value}`}`,
    ];
  });
}

function messageStatus(message: SessionMessage): string | null {
  return message.type === "assistant" || message.type === "action" ? message.status : null;
}

/**
 * The optimistic message write as a CTE body: an insert at expected revision 0 (a taken id or
 * sequence makes it insert nothing), else an update only while the stored revision is the expected
 * one. It runs only when the session row was locked (`updated` has a row), i.e. after the lock.
 */
function messageWrite(snapshot: SessionMessage, expected_revision: number): Prisma.Sql {
  const stored = JSON.stringify(snapshot);
  const status = messageStatus(snapshot);
  const turn_id = snapshot.turn_id ?? null;
  if (expected_revision === 0) {
    return Prisma.sql`
      INSERT INTO messages (session_id, message_id, sequence, revision, type, status, turn_id, created_at, updated_at, snapshot)
      SELECT ${snapshot.session_id}, ${snapshot.message_id}, ${snapshot.sequence}::int, 1, ${snapshot.type}, ${status},
             ${turn_id}, ${snapshot.created_at}::bigint, ${snapshot.updated_at}::bigint, ${stored}::jsonb
       WHERE EXISTS (SELECT 1 FROM updated)
      ON CONFLICT DO NOTHING
      RETURNING 1`;
  }
  return Prisma.sql`
    UPDATE messages
       SET revision = ${snapshot.revision}::int, status = ${status}, turn_id = ${turn_id},
           updated_at = ${snapshot.updated_at}::bigint, snapshot = ${stored}::jsonb
     WHERE session_id = ${snapshot.session_id} AND message_id = ${snapshot.message_id}
       AND revision = ${expected_revision}::int AND EXISTS (SELECT 1 FROM updated)
    RETURNING 1`;
}

/** Why the session row was not updated: it does not exist, is closed, or another epoch holds the lease. */
async function sessionFailure(tx: Prisma.TransactionClient, commit: SessionCommit): Promise<Error> {
  const found = await tx.$queryRaw<{ lease_epoch: number; closed: boolean }[]>`
    SELECT lease_epoch, closed_at IS NOT NULL AS closed FROM sessions WHERE session_id = ${commit.session_id}`;
  const current = found[0];
  if (!current) return new ParleyError("session_not_found", `Session not found: ${commit.session_id}`);
  // DESIGN §10.1: a closed session's writes fail in the store.
  if (current.closed) return new ParleyError("session_closed", `Session is closed: ${commit.session_id}`);
  return new StoreConflictError(
    "fenced",
    `Session ${commit.session_id} is leased at epoch ${current.lease_epoch}; the writer holds epoch ${commit.epoch}`,
  );
}

/** Why the message was not written: a stale revision, an existing message id, or a taken sequence. */
async function messageFailure(
  tx: Prisma.TransactionClient,
  snapshot: SessionMessage,
  expected_revision: number,
): Promise<StoreConflictError> {
  if (expected_revision > 0) {
    return new StoreConflictError(
      "revision",
      `Message ${snapshot.message_id} is no longer at revision ${expected_revision}`,
    );
  }
  const existing = await tx.$queryRaw<{ taken: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM messages WHERE session_id = ${snapshot.session_id}
                                             AND message_id = ${snapshot.message_id}) AS taken`;
  if (existing[0]?.taken)
    return new StoreConflictError("revision", `Message already exists: ${snapshot.message_id}`);
  return new StoreConflictError(
    "sequence",
    `Sequence ${snapshot.sequence} of session ${snapshot.session_id} is taken (message ${snapshot.message_id})`,
  );
}

/**
 * The core of a revision in ONE statement: lock the session row (serialising the session's
 * commits) while checking the fencing epoch and applying the session patch; write the message with
 * its optimistic check; and, when the commit carries a mutation and the message was written, take
 * the next event id and append the replay-log row (gap-free ids). Under READ COMMITTED a write that
 * waited for the session lock re-checks `revision` against the newest committed row. A failed check
 * writes nothing here and is diagnosed (extra reads only on that path); the caller's throw rolls
 * the transaction back, the incremented counter included.
 */
async function writeSessionAndMessage(
  tx: Prisma.TransactionClient,
  commit: SessionCommit,
): Promise<SessionEvent | undefined> {
  const { session_id, mutation, epoch, message } = commit;
  const assignments = [
    Prisma.sql`last_event_id = last_event_id + ${mutation ? 1 : 0}::int`,
    ...sessionPatchAssignments(commit),
  ];
  const storedMutation = mutation ? asStoredJson(mutation) : null;
  const written = message
    ? Prisma.sql`, written AS (${messageWrite(message.snapshot, message.expected_revision)})`
    : Prisma.empty;
  const messageWasWritten = message ? Prisma.sql`EXISTS (SELECT 1 FROM written)` : Prisma.sql`TRUE`;
  const rows = await tx.$queryRaw<{ last_event_id: number | null; message_written: boolean }[]>`
    WITH updated AS (
      UPDATE sessions SET ${Prisma.join(assignments, ", ")}
       WHERE session_id = ${session_id} AND closed_at IS NULL
         AND (${epoch ?? null}::int IS NULL OR lease_epoch = ${epoch ?? null}::int)
      RETURNING last_event_id
    )${written}, logged AS (
      INSERT INTO session_events (session_id, event_id, mutation, created_at)
      SELECT ${session_id}, updated.last_event_id,
             ${JSON.stringify(storedMutation)}::jsonb || jsonb_build_object('event_id', updated.last_event_id),
             ${storedMutation?.created_at ?? 0}::bigint
        FROM updated
       WHERE ${storedMutation !== null} AND ${messageWasWritten}
    )
    SELECT (SELECT last_event_id FROM updated) AS last_event_id, ${messageWasWritten} AS message_written`;
  const row = rows[0];
  if (row?.last_event_id === null || row?.last_event_id === undefined) throw await sessionFailure(tx, commit);
  if (message && !row.message_written) {
    throw await messageFailure(tx, message.snapshot, message.expected_revision);
  }
  if (!storedMutation) return undefined;
  return {
    session_id,
    event_id: row.last_event_id,
    mutation: { ...storedMutation, event_id: row.last_event_id } as SessionMutation,
  };
}

/** Message and part sequence of each record's tool part, when the commit's snapshot holds it. */
function positionsFromSnapshot(commit: SessionCommit, record: InteractionRecord) {
  const snapshot = commit.message?.snapshot;
  if (snapshot?.type !== "assistant" || snapshot.message_id !== record.message_id) return null;
  const part = snapshot.parts.find(
    (candidate) => candidate.type === "tool" && candidate.tool_call_id === record.tool_call_id,
  );
  return part ? { message_sequence: snapshot.sequence, part_sequence: part.sequence } : null;
}

/** Upserts the denormalised rows in one statement; positions missing from the commit are read from the stored message. */
async function upsertInteractions(tx: Prisma.TransactionClient, commit: SessionCommit): Promise<void> {
  const records = commit.interactions ?? [];
  if (records.length === 0) return;
  const rows = records.map((record) => {
    const { interaction } = record;
    const positions = positionsFromSnapshot(commit, record);
    return {
      session_id: record.session_id,
      interaction_id: interaction.interaction_id,
      message_id: record.message_id,
      message_sequence: positions?.message_sequence ?? null,
      part_sequence: positions?.part_sequence ?? null,
      tool_call_id: record.tool_call_id,
      tool_name: record.tool_name,
      ordinal: record.ordinal,
      type: interaction.interaction_type,
      status: interaction.status,
      turn_id: interaction.request.turn_id,
      request: interaction.request,
      response: interaction.response ?? null,
      cancel_reason: interaction.cancel_reason ?? null,
      responded_by: interaction.responded_by ?? null,
      created_at: interaction.request.created_at,
      resolved_at: interaction.resolved_at ?? null,
      resumed_at: interaction.resumed_at ?? null,
    };
  });
  await tx.$executeRaw`
    INSERT INTO interactions (session_id, interaction_id, message_id, message_sequence, part_sequence, tool_call_id,
                              tool_name, ordinal, type, status, turn_id, request, response, cancel_reason,
                              responded_by, created_at, resolved_at, resumed_at, inbox_at)
    SELECT r.session_id, r.interaction_id, r.message_id,
           COALESCE(r.message_sequence,
                    (SELECT m.sequence FROM messages m
                      WHERE m.session_id = r.session_id AND m.message_id = r.message_id), 0),
           COALESCE(r.part_sequence,
                    (SELECT (p.value->>'sequence')::int
                       FROM messages m, jsonb_array_elements(m.snapshot->'parts') p
                      WHERE m.session_id = r.session_id AND m.message_id = r.message_id
                        AND p.value->>'tool_call_id' = r.tool_call_id LIMIT 1), 0),
           r.tool_call_id, r.tool_name, r.ordinal, r.type, r.status, r.turn_id, r.request, r.response,
           r.cancel_reason, r.responded_by, r.created_at, r.resolved_at, r.resumed_at,
           COALESCE(r.resolved_at, r.created_at)
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(
             session_id text, interaction_id text, message_id text, message_sequence int, part_sequence int,
             tool_call_id text, tool_name text, ordinal int, type text, status text, turn_id text, request jsonb,
             response jsonb, cancel_reason text, responded_by text, created_at bigint, resolved_at bigint,
             resumed_at bigint)
    ON CONFLICT (session_id, interaction_id) DO UPDATE SET
      message_id = EXCLUDED.message_id, message_sequence = EXCLUDED.message_sequence,
      part_sequence = EXCLUDED.part_sequence, tool_call_id = EXCLUDED.tool_call_id,
      tool_name = EXCLUDED.tool_name, ordinal = EXCLUDED.ordinal, type = EXCLUDED.type,
      status = EXCLUDED.status, turn_id = EXCLUDED.turn_id, request = EXCLUDED.request,
      response = EXCLUDED.response, cancel_reason = EXCLUDED.cancel_reason,
      responded_by = EXCLUDED.responded_by, created_at = EXCLUDED.created_at, resolved_at = EXCLUDED.resolved_at,
      resumed_at = EXCLUDED.resumed_at, inbox_at = EXCLUDED.inbox_at`;
}

/** Appends the admin-feed rows in the given order, under the feed lock (ids in commit order). */
async function appendInteractionEvents(
  tx: Prisma.TransactionClient,
  commit: SessionCommit,
  now: number,
): Promise<InteractionEvent[]> {
  const events = asStoredJson(commit.interaction_events ?? []);
  if (events.length === 0) return [];
  const rows = await tx.$queryRaw<{ event_id: bigint }[]>`
    WITH feed_lock AS MATERIALIZED (SELECT pg_advisory_xact_lock(${INTERACTION_FEED_LOCK_KEY}::bigint))
    INSERT INTO interaction_events (session_id, interaction_id, kind, interaction, created_at)
    SELECT e.value->>'session_id', e.value->'interaction'->>'interaction_id', e.value->>'kind',
           e.value->'interaction', ${now}::bigint
      FROM feed_lock, jsonb_array_elements(${JSON.stringify(events)}::jsonb) WITH ORDINALITY AS e(value, position)
     ORDER BY e.position
    RETURNING event_id`;
  const ids = rows.map((row) => Number(row.event_id)).sort((left, right) => left - right);
  return events.map((event, index) => ({ ...event, event_id: ids[index] ?? Number.NaN }));
}

/**
 * One revision as one interactive transaction: BEGIN, the session + message + replay-log statement,
 * the interaction rows and admin-feed rows when the revision has any, COMMIT. The session row is
 * locked first, so commits of a session are serialised: the revision check, the gap-free event id
 * and the fencing check all see the latest committed state. Any conflict throws and rolls the
 * whole revision back.
 */
export async function commitRevision(
  tx: Prisma.TransactionClient,
  commit: SessionCommit,
  now: number,
): Promise<CommitResult> {
  const event = await writeSessionAndMessage(tx, commit);
  await settleCommandsInCommit(tx, commit);
  await upsertInteractions(tx, commit);
  const interaction_events = await appendInteractionEvents(tx, commit, now);
  return event ? { event, interaction_events } : { interaction_events };
}
