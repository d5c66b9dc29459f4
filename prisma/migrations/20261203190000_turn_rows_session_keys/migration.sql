-- The Turn row (DESIGN §10.7), and every key of session data includes `session_id` (ready for
-- Citus; `turn_rows`'s schema test checks it). Expand-only: a new table and new indexes; the admin
-- feed's key becomes (session_id, event_id) with its own index on `event_id`, which is all the
-- previous code reads it by (event ids stay unique: they come from the same sequence).

-- CreateTable
CREATE TABLE "turns" (
    "session_id" TEXT NOT NULL,
    "turn_id" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "holder" TEXT,
    "epoch" INTEGER NOT NULL DEFAULT 0,
    "updated_at" BIGINT NOT NULL,

    CONSTRAINT "turns_pkey" PRIMARY KEY ("session_id","turn_id")
);

-- CreateIndex
CREATE INDEX "session_commands_kind_status_session_id_idx" ON "session_commands"("kind", "status", "session_id");

-- CreateIndex
CREATE INDEX "turns_state_updated_at_idx" ON "turns"("state", "updated_at");

-- CreateIndex
CREATE INDEX "turns_session_id_state_idx" ON "turns"("session_id", "state");

-- AddForeignKey
ALTER TABLE "turns" ADD CONSTRAINT "turns_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("session_id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill: every open session's active Turn gets its row. One with messages is `running`: the
-- first recovery pass reads it, and a Turn it finds waiting for a person is written `waiting` then.
INSERT INTO "turns" ("session_id", "turn_id", "state", "holder", "epoch", "updated_at")
SELECT s."session_id", s."active_turn_id",
       CASE WHEN EXISTS (SELECT 1 FROM "messages" m
                          WHERE m."session_id" = s."session_id" AND m."turn_id" = s."active_turn_id")
            THEN 'running' ELSE 'queued' END,
       NULL, s."lease_epoch", s."updated_at"
  FROM "sessions" s
 WHERE s."active_turn_id" IS NOT NULL AND s."closed_at" IS NULL;

-- CreateIndex (before the key changes, so that reads by `event_id` always have an index)
CREATE INDEX "interaction_events_event_id_idx" ON "interaction_events"("event_id");

-- AlterTable
ALTER TABLE "interaction_events" DROP CONSTRAINT "interaction_events_pkey",
ADD CONSTRAINT "interaction_events_pkey" PRIMARY KEY ("session_id", "event_id");
