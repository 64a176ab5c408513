ALTER TABLE "running_generations" ADD COLUMN "project_id" uuid;--> statement-breakpoint
ALTER TABLE "running_generations" ADD COLUMN "node_id" text;--> statement-breakpoint
ALTER TABLE "running_generations" ADD CONSTRAINT "running_generations_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "running_generations_node_expires_idx" ON "running_generations" USING btree ("expires_at") WHERE project_id IS NOT NULL;