-- AlterTable
ALTER TABLE "sessions" ADD COLUMN     "active_turn_id" TEXT;

-- CreateTable
CREATE TABLE "session_commands" (
    "session_id" TEXT NOT NULL,
    "command_id" TEXT NOT NULL,
    "position" BIGSERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "input" JSONB NOT NULL,
    "request_id" TEXT,
    "turn_id" TEXT,
    "status" TEXT NOT NULL,
    "result" JSONB,
    "created_at" BIGINT NOT NULL,
    "settled_at" BIGINT,

    CONSTRAINT "session_commands_pkey" PRIMARY KEY ("session_id","command_id")
);

-- CreateIndex
CREATE INDEX "session_commands_status_session_id_position_idx" ON "session_commands"("status", "session_id", "position");

-- CreateIndex
CREATE UNIQUE INDEX "session_commands_session_id_request_id_key" ON "session_commands"("session_id", "request_id");

-- AddForeignKey
ALTER TABLE "session_commands" ADD CONSTRAINT "session_commands_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("session_id") ON DELETE CASCADE ON UPDATE CASCADE;
