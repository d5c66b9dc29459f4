-- A command's request id makes a retried request idempotent; most commands (every prompt sent
-- without one) have none, and each still took an entry in `(session_id, request_id)`. The unique
-- index now holds only the commands that have a request id. Its writers name the predicate in
-- `ON CONFLICT (session_id, request_id) WHERE request_id IS NOT NULL`, which infers it (a
-- release before this one cannot: stop older instances first, docs/deployment.md#migrations).
-- Prisma's schema cannot say `WHERE`, and its diff ignores partial indexes: `schema.prisma` names
-- it in a comment on `SessionCommand`. The new index is built before the old one is dropped.

-- CreateIndex
CREATE UNIQUE INDEX "session_commands_request_idx" ON "session_commands"("session_id", "request_id") WHERE "request_id" IS NOT NULL;

-- DropIndex
DROP INDEX "session_commands_session_id_request_id_key";
