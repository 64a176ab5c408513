ALTER TABLE "generation_jobs" ADD COLUMN "task_kind" text DEFAULT 'generation' NOT NULL;--> statement-breakpoint
ALTER TABLE "generation_jobs" ADD COLUMN "held" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "generation_jobs" ADD COLUMN "heartbeat_at" timestamp with time zone;--> statement-breakpoint
-- POST /api/image's jobs were those without a pg-boss job.
UPDATE "generation_jobs" SET "held" = true WHERE "boss_job_id" IS NULL;
