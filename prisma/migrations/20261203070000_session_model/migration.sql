-- AlterTable
ALTER TABLE "sessions" ADD COLUMN     "effective_model_id" TEXT,
ADD COLUMN     "model_id" TEXT;
