-- AlterTable: expand only (the previous code reads no new column; existing sessions allow nothing).
ALTER TABLE "sessions" ADD COLUMN     "effective_tool_allowances" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "tool_allowances" JSONB NOT NULL DEFAULT '[]';
