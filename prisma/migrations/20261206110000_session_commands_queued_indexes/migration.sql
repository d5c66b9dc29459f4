-- A command's indexes by `status` hold what is read through them. Every read by `status` asks for
-- queued commands (the session's queue, the busy check, the command sweep, the prompt quota), so
-- those indexes hold queued commands only: a command settled when it is written (a prompt to an
-- idle session) adds no entry to them (and no WAL), and they stay the size of the queues. The
-- previous release's statements read through them unchanged. Prisma's schema cannot say `WHERE`,
-- and its diff ignores partial indexes: `schema.prisma` names them in a comment on `SessionCommand`.

-- DropIndex
DROP INDEX "session_commands_status_session_id_position_idx";

-- CreateIndex
CREATE INDEX "session_commands_queued_idx" ON "session_commands"("session_id", "position") WHERE "status" = 'queued';

-- DropIndex
DROP INDEX "session_commands_kind_status_session_id_idx";

-- CreateIndex
CREATE INDEX "session_commands_queued_kind_idx" ON "session_commands"("kind", "session_id") WHERE "status" = 'queued';
