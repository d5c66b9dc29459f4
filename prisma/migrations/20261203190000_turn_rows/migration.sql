-- The Turn row (DESIGN §10.7). Expand-only: a new table and an index; nothing the previous code
-- reads changes.

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
