-- The index on a message's type and status holds the open assistant messages only: every query
-- through it asks for `type = 'assistant' AND status = 'streaming'` (a session's open Turn, the
-- session list's `running`, the operators' open Turns). User, action and error messages, and an
-- assistant message once closed, add no entry to it (and no WAL), and it stays the size of the
-- Turns in flight. Prisma's schema cannot say `WHERE`, and its diff ignores partial indexes:
-- `schema.prisma` names it in a comment on `Message`.

-- DropIndex
DROP INDEX "messages_type_status_session_id_sequence_idx";

-- CreateIndex
CREATE INDEX "messages_open_assistant_idx" ON "messages"("session_id", "sequence") WHERE "type" = 'assistant' AND "status" = 'streaming';
