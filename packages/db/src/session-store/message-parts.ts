import type { AssistantPart, SessionCommit, UnsequencedMutation } from "@parley/session-core";
import { Prisma } from "@prisma/client";

// Parts as rows (DESIGN §10.6, migration `20261206060000_message_parts`): an assistant message is
// stored as its `messages.snapshot` without `parts` plus one `message_parts` row per part. A
// revision writes the message's header and only the parts it changed; a replay-log entry of a part,
// or of a whole assistant message, keeps no copy of the parts and is given them back when read.
// Other messages (user, action, error) are written once and keep their parts inline.

/** The message's snapshot with its parts, as the domain knows it, for a `messages` row aliased `alias`. */
export function storedSnapshot(alias: string): Prisma.Sql {
  const m = Prisma.raw(alias);
  return Prisma.sql`CASE WHEN ${m}.type = 'assistant'
      THEN ${m}.snapshot || jsonb_build_object('parts', ${partsOf(Prisma.sql`${m}.session_id`, Prisma.sql`${m}.message_id`)})
      ELSE ${m}.snapshot END`;
}

/** The stored parts of one message (those in the JSON array `part_ids`, if given), in order, as a JSON array. */
function partsOf(session_id: Prisma.Sql, message_id: Prisma.Sql, part_ids?: Prisma.Sql): Prisma.Sql {
  const named = part_ids
    ? Prisma.sql`AND p.part_id IN (SELECT jsonb_array_elements_text(${part_ids}))`
    : Prisma.empty;
  return Prisma.sql`COALESCE((SELECT jsonb_agg(p.body ORDER BY p.sequence) FROM message_parts p
                     WHERE p.session_id = ${session_id} AND p.message_id = ${message_id} ${named}), '[]'::jsonb)`;
}

/**
 * A `session_events` row's mutation (aliased `alias`) as replayed: a part mutation with its part,
 * an assistant message with the parts it held (`part_ids`), as they are stored now. A later
 * revision may have changed them since: a replay carries the newest durable state of the parts it
 * names, which a client applies like any other.
 */
export function replayedMutation(alias: string): Prisma.Sql {
  const e = Prisma.raw(alias);
  return Prisma.sql`CASE
      WHEN ${e}.mutation->>'variant' = 'part' AND NOT ${e}.mutation ? 'part'
        THEN ${e}.mutation || jsonb_build_object('part',
               (SELECT p.body FROM message_parts p
                 WHERE p.session_id = ${e}.session_id AND p.message_id = ${e}.mutation->>'message_id'
                   AND p.part_id = ${e}.mutation->>'part_id'))
      WHEN ${e}.mutation->>'variant' = 'message' AND ${e}.mutation->'message' ? 'part_ids'
        THEN jsonb_set(${e}.mutation #- '{message,part_ids}', '{message,parts}',
               ${partsOf(
                 Prisma.sql`${e}.session_id`,
                 Prisma.sql`${e}.mutation->>'message_id'`,
                 Prisma.sql`${e}.mutation->'message'->'part_ids'`,
               )})
      ELSE ${e}.mutation END`;
}

/** The parts a revision writes: those it changed (`changed_part_ids`), else all. */
export function writtenParts(commit: SessionCommit): readonly AssistantPart[] {
  const snapshot = commit.message?.snapshot;
  if (snapshot?.type !== "assistant") return [];
  const changed = commit.message?.changed_part_ids;
  if (changed === undefined) return snapshot.parts;
  const ids = new Set(changed);
  return snapshot.parts.filter((part) => ids.has(part.part_id));
}

/**
 * The message's row as a revision writes it: an assistant message without its parts (they are
 * rows), any other message whole.
 */
export function storedMessageJson(commit: SessionCommit): string | null {
  const snapshot = commit.message?.snapshot;
  if (!snapshot) return null;
  return JSON.stringify(snapshot.type === "assistant" ? { ...snapshot, parts: undefined } : snapshot);
}

/**
 * The parts' upsert as a CTE body, run only once the message was written (`written` has a row), so
 * a rejected revision writes no part.
 */
export function partsWrite(commit: SessionCommit, parts: readonly AssistantPart[]): Prisma.Sql | null {
  const snapshot = commit.message?.snapshot;
  if (!snapshot || parts.length === 0) return null;
  return Prisma.sql`
    INSERT INTO message_parts (session_id, message_id, part_id, sequence, revision, body)
    SELECT ${snapshot.session_id}, ${snapshot.message_id}, p.value->>'part_id', (p.value->>'sequence')::int,
           ${snapshot.revision}::int, p.value
      FROM written, jsonb_array_elements(${JSON.stringify(parts)}::jsonb) AS p(value)
    ON CONFLICT (session_id, message_id, part_id) DO UPDATE
      SET sequence = EXCLUDED.sequence, revision = EXCLUDED.revision, body = EXCLUDED.body`;
}

/**
 * A mutation as the replay log keeps it: a part mutation of the revision's own message without
 * its part, a whole assistant message with its parts' ids (`part_ids`) instead of the parts, since
 * the revision stores them as rows (`replayedMutation` puts them back); anything else whole.
 */
export function loggedMutation(mutation: UnsequencedMutation, commit: SessionCommit): object {
  const snapshot = commit.message?.snapshot;
  if (snapshot?.type !== "assistant") return mutation;
  if (mutation.variant === "part" && mutation.message_id === snapshot.message_id) {
    return { ...mutation, part: undefined };
  }
  if (
    mutation.variant === "message" &&
    mutation.message.type === "assistant" &&
    mutation.message_id === snapshot.message_id
  ) {
    const part_ids = mutation.message.parts.map((part) => part.part_id);
    return { ...mutation, message: { ...mutation.message, parts: undefined, part_ids } };
  }
  return mutation;
}

/** `storedSnapshot` of a `messages` row aliased `m`, as SQL text (for tests that read rows directly). */
export const STORED_MESSAGE_SNAPSHOT = storedSnapshot("m").sql;

/** `replayedMutation` of a `session_events` row aliased `e`, as SQL text (the bus reads with `pg`). */
export const REPLAYED_MUTATION = replayedMutation("e").sql;
