-- The admin inbox sort key (resolved_at, else created_at), so that every inbox order is served by an
-- index. Existing rows are backfilled before the column becomes NOT NULL.
-- DropIndex
DROP INDEX "interactions_status_created_at_interaction_id_idx";

-- DropIndex
DROP INDEX "interactions_status_resolved_at_interaction_id_idx";

-- DropIndex
DROP INDEX "interactions_tool_name_status_created_at_idx";

-- DropIndex
DROP INDEX "interactions_type_status_created_at_idx";

-- AlterTable
ALTER TABLE "interactions" ADD COLUMN     "inbox_at" BIGINT;
UPDATE "interactions" SET "inbox_at" = COALESCE("resolved_at", "created_at");
ALTER TABLE "interactions" ALTER COLUMN "inbox_at" SET NOT NULL;

-- CreateIndex
CREATE INDEX "interactions_status_inbox_at_interaction_id_idx" ON "interactions"("status", "inbox_at", "interaction_id");

-- CreateIndex
CREATE INDEX "interactions_inbox_at_idx" ON "interactions"("inbox_at" DESC);

-- CreateIndex
CREATE INDEX "interactions_tool_name_status_inbox_at_idx" ON "interactions"("tool_name", "status", "inbox_at");

-- CreateIndex
CREATE INDEX "interactions_type_status_inbox_at_idx" ON "interactions"("type", "status", "inbox_at");
