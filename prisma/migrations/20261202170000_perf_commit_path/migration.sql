-- The commit path of issue 11: one statement per revision, no global lock for the admin feed,
-- only the indexes a query needs.

-- Indexes no query uses. The per-session pending list (`listPendingInteractions`,
-- `countPendingInteractions`) is served by the primary key's `session_id` prefix (a session has a
-- handful of interactions); the inbox's `type` filter by `status, inbox_at` (two types); nothing
-- reads `interaction_events` by session. Every status change of an interaction is a non-HOT update
-- that writes one entry in every index, so each index dropped is WAL saved per answer.
DROP INDEX "interactions_session_id_status_message_sequence_part_sequen_idx";
DROP INDEX "interactions_type_status_inbox_at_idx";
DROP INDEX "interaction_events_session_id_event_id_idx";

-- A rejected revision (fenced, missing session, stale revision, taken sequence) is detected inside
-- the commit's single statement; raising aborts that statement, so nothing of it is written.
-- `packages/db/src/session-store/commit-revision.ts` parses the reason after the prefix.
CREATE FUNCTION parley_reject_commit(reason text) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'parley_commit_rejected:' || reason;
END
$$;

-- The admin feed's settled high-water mark. Writers of `interaction_events` hold the feed lock in
-- SHARED mode from before they take their ids until they commit (they never wait for each other);
-- taking it EXCLUSIVE here waits until every writer in flight has committed or rolled back, so every
-- id up to the mark returned is settled: a reader that reads up to it in a LATER statement (fresh
-- snapshot) can never skip an id that becomes visible afterwards. The lock is released when the
-- calling statement ends. Same key as `FEED_LOCK_KEY` in commit-revision.ts.
CREATE FUNCTION parley_interaction_feed_mark() RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  mark bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(7342911002);
  SELECT CASE WHEN is_called THEN last_value ELSE 0 END INTO mark FROM interaction_events_event_id_seq;
  RETURN mark;
END
$$;

-- Room for HOT updates. A revision updates its session row (`last_event_id`) and its message row
-- without touching an indexed column; with free space on the same page Postgres writes the new
-- tuple there and no index entries at all (3 on `messages`, 3 on `sessions`), which is most of a
-- revision's WAL besides the row itself. Prisma does not model storage parameters (no drift).
ALTER TABLE "sessions" SET (fillfactor = 70);
ALTER TABLE "messages" SET (fillfactor = 50);
ALTER TABLE "interactions" SET (fillfactor = 80);
