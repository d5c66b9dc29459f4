-- An Interaction is read by its id alone (`getInteraction`, the check that an id is not another
-- session's) or by its id and session (the answer's context), never by a range of its session's
-- ids; the reads by session go through `(session_id, message_id, tool_call_id, ordinal)`. So its key
-- leads with `interaction_id`, and the separate index on `interaction_id` goes: an Interaction
-- written twice (asked; answered, a non-HOT update) added two entries to it. The key still includes
-- `session_id` (DESIGN §10.7, ready for Citus), and `ON CONFLICT (session_id, interaction_id)`
-- infers it whatever the order of its columns. The new key is built before the old index is
-- dropped, so reads by id always have an index.

-- AlterTable
ALTER TABLE "interactions" DROP CONSTRAINT "interactions_pkey",
ADD CONSTRAINT "interactions_pkey" PRIMARY KEY ("interaction_id", "session_id");

-- DropIndex
DROP INDEX "interactions_interaction_id_idx";
