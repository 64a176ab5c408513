ALTER TABLE "generations" ADD COLUMN "job_id" text;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "project_id" uuid;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "node_id" text;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "canvas_version" integer;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "model_version" text;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "inputs" jsonb;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "output_sha256" text;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "output_bytes" integer;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "queued_ms" integer;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "model_ms" integer;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "total_ms" integer;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "cost" jsonb;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "parent_ids" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "prompt_in_metadata" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "prompt_search" "tsvector" GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, prompt)) STORED;--> statement-breakpoint
ALTER TABLE "generations" ADD CONSTRAINT "generations_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "generations_project_created_idx" ON "generations" USING btree ("project_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE project_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX "generations_output_url_idx" ON "generations" USING btree ("output_image_url");--> statement-breakpoint
CREATE INDEX "generations_prompt_search_idx" ON "generations" USING gin ("prompt_search");