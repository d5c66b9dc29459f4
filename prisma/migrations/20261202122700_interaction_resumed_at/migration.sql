-- AlterTable
ALTER TABLE "interactions" ADD COLUMN     "resumed_at" BIGINT;
