-- The indexes on a Turn's `state` hold unfinished Turns only. Every query through them asks for an
-- unfinished Turn (the liveness pass: queued and running ones; a session's active Turn: `state <>
-- 'finished'`), so a Turn's last write, to `finished`, adds no entry to them (and no WAL), and
-- they stay the size of the work in flight rather than of the history. Prisma's schema cannot say
-- `WHERE`, and its diff ignores partial indexes: `schema.prisma` names them in a comment on `Turn`.

-- DropIndex
DROP INDEX "turns_state_updated_at_idx";

-- CreateIndex
CREATE INDEX "turns_state_updated_at_idx" ON "turns"("state", "updated_at") WHERE "state" <> 'finished';

-- DropIndex
DROP INDEX "turns_session_id_state_idx";

-- CreateIndex
CREATE INDEX "turns_session_id_state_idx" ON "turns"("session_id", "state") WHERE "state" <> 'finished';
