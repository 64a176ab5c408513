CREATE TABLE "object_deletions" (
	"name" text PRIMARY KEY NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"project_id" uuid,
	"queued_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "object_deletions_due_idx" ON "object_deletions" USING btree ("due_at");