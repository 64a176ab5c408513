CREATE TABLE "run_jobs" (
	"run_id" text NOT NULL,
	"idx" integer NOT NULL,
	"node_id" text NOT NULL,
	"instance" integer NOT NULL,
	"job_id" text NOT NULL,
	"node_type" text NOT NULL,
	"key" text NOT NULL,
	"node_key" text NOT NULL,
	"seed" integer,
	"task_kind" text NOT NULL,
	"model" text,
	"params" jsonb NOT NULL,
	"inputs" jsonb NOT NULL,
	"deps" integer[] NOT NULL,
	"status" text DEFAULT 'waiting' NOT NULL,
	"reason" text,
	"cost_usd" numeric(12, 6),
	"image_url" text,
	CONSTRAINT "run_jobs_pkey" PRIMARY KEY("run_id","idx"),
	CONSTRAINT "run_jobs_status_check" CHECK ("run_jobs"."status" IN ('waiting', 'queued', 'running', 'cached', 'succeeded', 'failed', 'skipped', 'canceled'))
);
--> statement-breakpoint
CREATE TABLE "runs" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"mode" text NOT NULL,
	"node_ids" text[] NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"estimate" jsonb NOT NULL,
	"cost_usd" numeric(12, 6) DEFAULT '0' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "runs_status_check" CHECK ("runs"."status" IN ('running', 'succeeded', 'failed', 'canceled'))
);
--> statement-breakpoint
ALTER TABLE "generation_jobs" ADD COLUMN "run_id" text;--> statement-breakpoint
ALTER TABLE "generation_jobs" ADD COLUMN "cache_key" text;--> statement-breakpoint
ALTER TABLE "generation_jobs" ADD COLUMN "seed" integer;--> statement-breakpoint
ALTER TABLE "generation_jobs" ADD COLUMN "params" jsonb;--> statement-breakpoint
ALTER TABLE "generation_jobs" ADD COLUMN "cache_hit" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "cache_key" text;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "seed" integer;--> statement-breakpoint
ALTER TABLE "run_jobs" ADD CONSTRAINT "run_jobs_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "run_jobs_job_id_key" ON "run_jobs" USING btree ("job_id");--> statement-breakpoint
CREATE INDEX "runs_project_created_idx" ON "runs" USING btree ("project_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "runs_running_idx" ON "runs" USING btree ("created_at") WHERE status = 'running';--> statement-breakpoint
CREATE INDEX "generation_jobs_run_idx" ON "generation_jobs" USING btree ("run_id") WHERE run_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX "generation_jobs_project_cache_key_idx" ON "generation_jobs" USING btree ("project_id","cache_key") WHERE cache_key IS NOT NULL AND status IN ('queued', 'running');--> statement-breakpoint
CREATE INDEX "generations_project_cache_key_idx" ON "generations" USING btree ("project_id","cache_key") WHERE cache_key IS NOT NULL;