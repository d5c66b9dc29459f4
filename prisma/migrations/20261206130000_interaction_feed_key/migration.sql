-- The admin feed is read only by `event_id` ranges (the notice bus, `listInteractionEvents`), so
-- its key leads with `event_id` and the separate index on `event_id` goes: each feed entry (two an
-- approval) added an entry to both. The key still includes `session_id` (DESIGN §10.7, ready for
-- Citus); event ids stay unique (one sequence). The new key is built before the old index is
-- dropped, so reads by `event_id` always have an index.

-- AlterTable
ALTER TABLE "interaction_events" DROP CONSTRAINT "interaction_events_pkey",
ADD CONSTRAINT "interaction_events_pkey" PRIMARY KEY ("event_id", "session_id");

-- DropIndex
DROP INDEX "interaction_events_event_id_idx";
