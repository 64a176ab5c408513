ALTER TABLE "running_generations" ADD COLUMN "reserved_usd" numeric(12, 6);--> statement-breakpoint
ALTER TABLE "spent_model_calls" ADD COLUMN "cost_usd" numeric(12, 6);