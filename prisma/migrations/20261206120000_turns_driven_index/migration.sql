-- A session's unfinished Turn is the one its row names (`sessions.active_turn_id`: set by the
-- prompt that queues the Turn, in the statement that inserts its row; cleared by the commit that
-- finishes it). Its readers (`getActiveTurn`, the lease's epoch advance) find it by the primary key
-- through that column, so `turns (session_id, state)` goes: every state change of a Turn is a
-- non-HOT update, which added an entry to it each time.
--
-- The liveness pass reads only `queued` and `running` Turns, so the index it reads holds only those:
-- a Turn waiting for a person adds no entry to it (with 100,000 waiting, it stays the size of the
-- work in flight), nor does its finish. Prisma's schema cannot say `WHERE`, and its diff ignores
-- partial indexes: `schema.prisma` names it in a comment on `Turn`.

-- DropIndex
DROP INDEX "turns_session_id_state_idx";

-- DropIndex
DROP INDEX "turns_state_updated_at_idx";

-- CreateIndex
CREATE INDEX "turns_state_updated_at_idx" ON "turns"("state", "updated_at") WHERE "state" IN ('queued', 'running');
