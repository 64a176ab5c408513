CREATE TABLE "generation_job_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"job_id" text NOT NULL,
	"job" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "generation_jobs" ADD COLUMN "error_code" text;--> statement-breakpoint
ALTER TABLE "generation_jobs" ADD COLUMN "error_extra" jsonb;--> statement-breakpoint
ALTER TABLE "generation_jobs" ADD COLUMN "error_retry_after_seconds" integer;--> statement-breakpoint
ALTER TABLE "generation_jobs" ADD COLUMN "output_text" text;--> statement-breakpoint
ALTER TABLE "generation_job_events" ADD CONSTRAINT "generation_job_events_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "generation_job_events_user_id_idx" ON "generation_job_events" USING btree ("user_id","id");--> statement-breakpoint
CREATE INDEX "generation_job_events_created_idx" ON "generation_job_events" USING btree ("created_at");