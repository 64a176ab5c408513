-- A failure recorded without a code (an instance that died) is an internal one (500, as it was recorded).
UPDATE "generation_jobs" SET "error_code" = 'internal' WHERE "status" = 'failed' AND "error_code" IS NULL;--> statement-breakpoint
ALTER TABLE "generation_jobs" DROP COLUMN "error_status";
