-- Parts as rows (DESIGN §10.6): an assistant message's parts move out of `messages.snapshot` into
-- one row each (a tool part's Interactions stay only in their `interactions` rows), the snapshot
-- stops repeating the row's columns, and the replay log references the
-- stored parts and messages instead of holding copies. The previous release cannot read what this
-- one writes (it expects whole snapshots and copies in the log), so upgrade across this migration
-- with the previous release stopped (docs/deployment.md#migrations).

-- CreateTable
CREATE TABLE "message_parts" (
    "session_id" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "part_id" TEXT NOT NULL,
    "sequence" INTEGER NOT NULL,
    "revision" INTEGER NOT NULL,
    "body" JSONB NOT NULL,

    CONSTRAINT "message_parts_pkey" PRIMARY KEY ("session_id","message_id","part_id")
);

-- AddForeignKey
ALTER TABLE "message_parts" ADD CONSTRAINT "message_parts_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("session_id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Existing assistant messages: their parts become rows, their snapshots keep every other field.
INSERT INTO "message_parts" ("session_id", "message_id", "part_id", "sequence", "revision", "body")
SELECT m."session_id", m."message_id", p.value->>'part_id', (p.value->>'sequence')::int, m."revision", p.value
  FROM "messages" m, jsonb_array_elements(m."snapshot"->'parts') p
 WHERE m."type" = 'assistant';

UPDATE "messages" SET "snapshot" = "snapshot" - 'parts' WHERE "type" = 'assistant';

-- A tool part's Interactions are read from their `interactions` rows (the same revisions write both).
CREATE INDEX "interactions_session_id_message_id_tool_call_id_ordinal_idx" ON "interactions"("session_id", "message_id", "tool_call_id", "ordinal");

UPDATE "message_parts" p SET "body" = p."body" - 'interactions'
 WHERE p."body"->>'type' = 'tool'
   AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(p."body"->'interactions') x
                    WHERE NOT EXISTS (SELECT 1 FROM "interactions" i
                                       WHERE i."session_id" = p."session_id"
                                         AND i."interaction_id" = x->>'interaction_id'));

-- A snapshot no longer repeats what the row's columns hold.
UPDATE "messages" SET "snapshot" = "snapshot" - ARRAY['session_id', 'message_id', 'sequence', 'revision', 'type',
                                                      'turn_id', 'created_at', 'updated_at']::text[];
UPDATE "messages" SET "snapshot" = "snapshot" - 'status' WHERE "type" IN ('assistant', 'action');

-- Logged part and message mutations now reference the stored part or message instead of a copy.
UPDATE "session_events" e SET "mutation" = e."mutation" - 'part'
 WHERE e."mutation"->>'variant' = 'part'
   AND EXISTS (SELECT 1 FROM "message_parts" p
                WHERE p."session_id" = e."session_id" AND p."message_id" = e."mutation"->>'message_id'
                  AND p."part_id" = e."mutation"->>'part_id');

UPDATE "session_events" e SET "mutation" = e."mutation" - 'message'
 WHERE e."mutation"->>'variant' = 'message'
   AND EXISTS (SELECT 1 FROM "messages" m
                WHERE m."session_id" = e."session_id" AND m."message_id" = e."mutation"->>'message_id');

-- The admin feed references the Interaction's row too (NULL `interaction`); entries whose row exists
-- stop holding a copy.
ALTER TABLE "interaction_events" ALTER COLUMN "interaction" DROP NOT NULL;

UPDATE "interaction_events" e SET "interaction" = NULL
 WHERE EXISTS (SELECT 1 FROM "interactions" i
                WHERE i."session_id" = e."session_id" AND i."interaction_id" = e."interaction_id");
