-- The lease table goes: a generation's state is its job row's (running with a live heartbeat), and its hold on the
-- free quota is the row's reserved_usd. Rows of generations running during the upgrade only lapse sooner.
DROP TABLE "running_generations" CASCADE;--> statement-breakpoint
ALTER TABLE "generation_jobs" ADD COLUMN "reserved_usd" numeric(12, 6);
