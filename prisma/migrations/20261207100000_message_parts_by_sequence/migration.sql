-- A part's row names its message by the message's `sequence` (the short key of `messages`, as a
-- log entry does), not by its `message_id`: the id is about 50 characters, written in every part's
-- row and in its key's index entry, on each insert and each update of the part. The key becomes
-- `(session_id, message_sequence, part_id)`; `message_id` is no longer written or read and goes in
-- a later release. The backfill and the key's build rewrite the table and block its writes while
-- they run (docs/deployment.md#migrations).

-- AlterTable
ALTER TABLE "message_parts" ADD COLUMN "message_sequence" INTEGER;

UPDATE "message_parts" p SET "message_sequence" = m."sequence"
  FROM "messages" m
 WHERE m."session_id" = p."session_id" AND m."message_id" = p."message_id";

-- Parts whose message is gone (none should be: a message's parts are written with it) cannot be
-- read by any reader; they go rather than block the key.
DELETE FROM "message_parts" WHERE "message_sequence" IS NULL;

ALTER TABLE "message_parts" DROP CONSTRAINT "message_parts_pkey",
ADD CONSTRAINT "message_parts_pkey" PRIMARY KEY ("session_id", "message_sequence", "part_id");

ALTER TABLE "message_parts" ALTER COLUMN "message_id" DROP NOT NULL;

-- parley:deprecate column "message_parts"."message_id"
