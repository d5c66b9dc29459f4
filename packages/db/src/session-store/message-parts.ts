import type { AssistantPart, SessionCommit, SessionMessage, UnsequencedMutation } from "@parley/session-core";
import { Prisma } from "@prisma/client";
import { interactionJson } from "./interaction-json.js";
import type { DomainRow } from "./table-columns.js";
import { MESSAGE_COLUMNS } from "./tables.js";

// Parts as rows (DESIGN §10.6, migration `20261206060000_message_parts`): an assistant message is
// stored as its `messages.snapshot` without `parts` plus one `message_parts` row per part. A
// revision writes the message's header and only the parts it changed. A replay-log entry of a part
// or of a whole message keeps no copy of it and is given the stored one back when read. Other
// messages (user, action, error) keep their parts inline: they have none that change alone. A tool
// part's Interactions are kept once, in their `interactions` rows (written in the same revisions).

/** The message's fields that `messages` keeps in columns of their own: its `snapshot` leaves them out. */
const MESSAGE_HEADER_COLUMNS = Object.keys(MESSAGE_COLUMNS).filter((name) => name !== "snapshot");
const MESSAGE_HEADER_FIELDS = new Set(MESSAGE_HEADER_COLUMNS);

/** The message as the domain knows it, for a `messages` row aliased `alias`: columns, snapshot, parts. */
export function storedSnapshot(alias: string): Prisma.Sql {
  const m = Prisma.raw(alias);
  const header = Prisma.raw(MESSAGE_HEADER_COLUMNS.map((name) => `'${name}', ${alias}.${name}`).join(", "));
  // Nulls are stripped from the columns' object only: a null column is a field the message lacks.
  return Prisma.sql`jsonb_strip_nulls(jsonb_build_object(${header}))
      || ${m}.snapshot
      || CASE WHEN ${m}.type = 'assistant'
           THEN jsonb_build_object('parts', ${partsOf(alias)})
           ELSE '{}'::jsonb END`;
}

/** The stored parts of the `messages` row aliased `alias`, in order, as a JSON array. */
function partsOf(alias: string): Prisma.Sql {
  const m = Prisma.raw(alias);
  return Prisma.sql`COALESCE((SELECT jsonb_agg(${storedPart("p", alias)} ORDER BY p.sequence) FROM message_parts p
                     WHERE p.session_id = ${m}.session_id AND p.message_sequence = ${m}.sequence), '[]'::jsonb)`;
}

/**
 * A `message_parts` row (aliased `alias`) of the `messages` row aliased `message` as the part: its
 * body with the `part_id` and `sequence` its columns hold, a tool part with its Interactions, in
 * order.
 */
function storedPart(alias: string, message: string): Prisma.Sql {
  const p = Prisma.raw(alias);
  const m = Prisma.raw(message);
  const part = Prisma.sql`(${p}.body || jsonb_build_object('part_id', ${p}.part_id, 'sequence', ${p}.sequence))`;
  return Prisma.sql`CASE WHEN ${p}.body->>'type' = 'tool'
      THEN ${part} || (SELECT CASE WHEN count(*) = 0 THEN '{}'::jsonb
                                     ELSE jsonb_build_object('interactions', jsonb_agg(${interactionJson("i")} ORDER BY i.ordinal)) END
                          FROM interactions i
                         WHERE i.session_id = ${m}.session_id AND i.message_id = ${m}.message_id
                           AND i.tool_call_id = ${p}.body->>'tool_call_id')
      ELSE ${part} END`;
}

/**
 * A `session_events` row's mutation (aliased `alias`) as replayed: a part mutation with its part, a
 * message mutation with its message, as they are stored now. A later revision may have changed
 * them since: a replay carries the newest durable state of what it names, which a client applies
 * like any other (its `revision` stays the one the mutation was logged at). The fields that repeat
 * them (`type`, `turn_id`, a message's `message_id` and `sequence`) come back from the rows too; an
 * entry names its message by `message_sequence` (the short key of `messages`), and entries logged
 * before that hold `message_id`, with the same result.
 */
export function replayedMutation(alias: string): Prisma.Sql {
  const e = Prisma.raw(alias);
  // The id derived from the event's (`durableMutationId`; an entry of a release before holds its own,
  // which wins), the entry, the row's columns, then what it names (`mutation` holds neither).
  const logged = Prisma.sql`(jsonb_build_object('mutation_id', 'mutation:' || ${e}.session_id || ':' || ${e}.event_id)
      || (${e}.mutation - 'message_sequence') || jsonb_build_object('session_id', ${e}.session_id,
      'event_id', ${e}.event_id, 'created_at', ${e}.created_at))`;
  // The named message, by its key `(session_id, sequence)`: an older entry's `message_id` gives the
  // sequence (COALESCE reads it only for such an entry). Not an OR of both: it reads no index range.
  const named = Prisma.sql`m.session_id = ${e}.session_id
      AND m.sequence = COALESCE((${e}.mutation->>'message_sequence')::int,
            (SELECT o.sequence FROM messages o
              WHERE o.session_id = ${e}.session_id AND o.message_id = ${e}.mutation->>'message_id'))`;
  return Prisma.sql`${logged} || CASE
      WHEN ${e}.mutation->>'variant' = 'part' AND NOT ${e}.mutation ? 'part'
        THEN COALESCE(
               (SELECT jsonb_build_object('part', ${storedPart("p", "m")}, 'type', p.body->'type', 'message_id', m.message_id)
                       || ${turnOf("m")}
                  FROM messages m
                  JOIN message_parts p ON p.session_id = m.session_id AND p.message_sequence = m.sequence
                 WHERE ${named} AND p.part_id = ${e}.mutation->>'part_id'),
               jsonb_build_object('part', NULL))
      WHEN ${e}.mutation->>'variant' = 'message' AND NOT ${e}.mutation ? 'message'
        THEN COALESCE(
               (SELECT jsonb_build_object('message', ${storedSnapshot("m")}, 'type', m.type, 'sequence', m.sequence,
                                          'message_id', m.message_id)
                       || ${turnOf("m")}
                  FROM messages m
                 WHERE ${named}),
               jsonb_build_object('message', NULL))
      ELSE '{}'::jsonb END`;
}

/** A `messages` row's (aliased `alias`) `turn_id` as an object: empty when the message has none. */
function turnOf(alias: string): Prisma.Sql {
  const m = Prisma.raw(alias);
  return Prisma.sql`(CASE WHEN ${m}.turn_id IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('turn_id', ${m}.turn_id) END)`;
}

/** A part as its `message_parts` row holds it: the row's `part_id` and `sequence` columns, and the body. */
interface WrittenPart {
  part_id: string;
  sequence: number;
  body: object;
}

/**
 * The parts a revision writes: those it changed (`changed_part_ids`), else all. The body leaves out
 * what the row's columns hold, and a tool part its Interactions, which the revision's
 * `interactions` rows hold (an empty list stays: no row would give it back).
 */
function writtenParts(commit: SessionCommit): readonly WrittenPart[] {
  const snapshot = commit.message?.snapshot;
  if (snapshot?.type !== "assistant") return [];
  const changed = commit.message?.changed_part_ids;
  const ids = changed === undefined ? null : new Set(changed);
  return snapshot.parts
    .filter((part) => ids === null || ids.has(part.part_id))
    .map((part) => ({ part_id: part.part_id, sequence: part.sequence, body: partBody(part) }));
}

function partBody(part: AssistantPart): object {
  const body = { ...part, part_id: undefined, sequence: undefined };
  return part.type === "tool" && part.interactions?.length ? { ...body, interactions: undefined } : body;
}

/**
 * The message's `messages` row as a revision writes it: its header in the columns, the rest in
 * `snapshot` (an assistant message without its parts: they are rows).
 */
export function storedMessage(message: SessionMessage): DomainRow<typeof MESSAGE_COLUMNS> {
  const rest = Object.entries(message).filter(
    ([field]) => !MESSAGE_HEADER_FIELDS.has(field) && !(field === "parts" && message.type === "assistant"),
  );
  return {
    session_id: message.session_id,
    message_id: message.message_id,
    sequence: message.sequence,
    revision: message.revision,
    type: message.type,
    status: message.type === "assistant" || message.type === "action" ? message.status : null,
    turn_id: message.turn_id ?? null,
    created_at: message.created_at,
    updated_at: message.updated_at,
    snapshot: Object.fromEntries(rest),
  };
}

/**
 * The write of the parts the revision changed (`writtenParts`) as CTEs, run only once the message
 * was written (`written` has a row), so a rejected revision writes no part. Null: none.
 *
 * A stored part is updated and a new one inserted, rather than upserted: an upsert writes WAL for
 * its row lock, or for its speculative insert's confirmation, on top of the row. A plain INSERT is
 * safe because the message's optimistic check passed: any revision that stored parts of this
 * message committed before it, so this statement's snapshot sees them (and updates them). The
 * update names the message's `sequence` (it never changes) as a parameter: joined on `written`
 * alone, the statement's generic plan read every part of the table, or of the session, in each
 * revision (generic-plan-commits.int.test.ts).
 */
export function partsWrite(commit: SessionCommit): Prisma.Sql | null {
  const snapshot = commit.message?.snapshot;
  const parts = writtenParts(commit);
  if (!snapshot || parts.length === 0) return null;
  const values = Prisma.sql`jsonb_to_recordset(${JSON.stringify(parts)}::jsonb) AS v(part_id text, sequence int, body jsonb)`;
  return Prisma.sql`, part_values AS MATERIALIZED (
      SELECT written.sequence AS message_sequence, v.part_id, v.sequence, v.body FROM written, ${values}
    ), parts_updated AS (
      UPDATE message_parts p SET sequence = v.sequence, revision = ${snapshot.revision}::int, body = v.body
        FROM part_values v
       WHERE p.session_id = ${snapshot.session_id} AND p.message_sequence = ${snapshot.sequence}::int
         AND p.message_sequence = v.message_sequence AND p.part_id = v.part_id
      RETURNING p.part_id
    ), parted AS (
      INSERT INTO message_parts (session_id, message_sequence, part_id, sequence, revision, body)
      SELECT ${snapshot.session_id}, v.message_sequence, v.part_id, v.sequence, ${snapshot.revision}::int, v.body
        FROM part_values v
       WHERE v.part_id NOT IN (SELECT part_id FROM parts_updated)
    )`;
}

/**
 * A mutation as the replay log keeps it: without `session_id` (a column), and a part or message
 * mutation of the revision's own message without the part or message, which the revision stores,
 * nor the fields that repeat them (`type`, `turn_id`, a message's `sequence`); the message is named
 * by its `sequence` (`message_sequence`), not its long `message_id`. `replayedMutation` puts them
 * all back from the rows. The log row is the largest write of a checkpoint (its ids are long), so
 * what it need not hold it does not.
 */
export function loggedMutation(mutation: UnsequencedMutation, commit: SessionCommit): object {
  // No `mutation_id` either: it is derived from the event id (`durableMutationId`).
  const logged = { ...mutation, session_id: undefined, mutation_id: undefined };
  const snapshot = commit.message?.snapshot;
  if (snapshot === undefined || !("message_id" in mutation) || mutation.message_id !== snapshot.message_id) {
    return logged;
  }
  const named = {
    ...logged,
    type: undefined,
    turn_id: undefined,
    message_id: undefined,
    message_sequence: snapshot.sequence,
  };
  if (mutation.variant === "message") return { ...named, message: undefined, sequence: undefined };
  if (mutation.variant === "part" && snapshot.type === "assistant") return { ...named, part: undefined };
  return logged;
}

/** `storedSnapshot` of a `messages` row aliased `m`, as SQL text (for tests that read rows directly). */
export const STORED_MESSAGE_SNAPSHOT = storedSnapshot("m").sql;
