CREATE TABLE "generation_jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"project_id" text,
	"node_id" text,
	"prompt" text NOT NULL,
	"images" jsonb NOT NULL,
	"model" text,
	"status" text DEFAULT 'queued' NOT NULL,
	"error" text,
	"error_details" text,
	"error_status" integer,
	"output_url" text,
	"generation_id" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"boss_job_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	CONSTRAINT "generation_jobs_status_check" CHECK ("generation_jobs"."status" IN ('queued', 'running', 'succeeded', 'failed', 'canceled'))
);
--> statement-breakpoint
ALTER TABLE "generation_jobs" ADD CONSTRAINT "generation_jobs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "generation_jobs_user_created_idx" ON "generation_jobs" USING btree ("user_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "generation_jobs_user_status_created_idx" ON "generation_jobs" USING btree ("user_id","status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "generation_jobs_project_created_idx" ON "generation_jobs" USING btree ("project_id","created_at" DESC NULLS LAST) WHERE project_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX "generation_jobs_queued_idx" ON "generation_jobs" USING btree ("created_at","id") WHERE status = 'queued';