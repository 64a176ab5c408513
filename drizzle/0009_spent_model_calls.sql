CREATE TABLE "spent_model_calls" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "spent_model_calls" ADD CONSTRAINT "spent_model_calls_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "spent_model_calls_user_created_idx" ON "spent_model_calls" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "spent_model_calls_created_idx" ON "spent_model_calls" USING btree ("created_at");