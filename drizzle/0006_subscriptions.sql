CREATE TABLE "subscriptions" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"product_id" text,
	"status" text,
	"has_access" boolean NOT NULL,
	"grants_pro" boolean NOT NULL,
	"changed_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "subscriptions_user_idx" ON "subscriptions" USING btree ("user_id");--> statement-breakpoint
-- Data: until this migration the Pro state lived on the user row alone (is_pro, subscription_status and the time
-- of the last event applied to the user, subscription_event_at), without the subscription's id. Each user with
-- any of that state gets one pre-upgrade row, `legacy:<user id>` (no Polar id looks like that), holding it:
-- has_access = grants_pro = is_pro, status = subscription_status, changed_at = subscription_event_at (the upgrade
-- time when the user has none, e.g. made Pro before 0004). So is_pro, which is now derived from the rows, stays
-- exactly as it was for everyone, and nobody loses Pro at the upgrade.
--
-- Why not simply keep a synthetic Pro row (no Polar event would ever name it: the user would stay Pro after their
-- subscription is revoked) or leave is_pro alone until the user's first event (that event may be a plain
-- `subscription.updated` of the paid subscription, which grants nothing, and would take Pro away)? Instead the
-- service hands the pre-upgrade state over to the user's subscriptions as their events arrive
-- (src/services/subscriptions.ts):
-- - an event of a subscription without a row that is older than changed_at is skipped, as the per-user ordering
--   did before the upgrade (a late `subscription.active` after a revocation still grants nothing);
-- - a subscription created no later than changed_at (one the pre-upgrade state may come from) starts with
--   has_access = the pre-upgrade is_pro, and from then on the pre-upgrade row no longer grants Pro itself: the
--   subscription's own row carries it, and its `subscription.revoked` ends it. Subscriptions created later start
--   without access, as for any user.
-- users.subscription_event_at stays (unused from now on) while instances of the previous release may still run.
INSERT INTO "subscriptions" ("id", "user_id", "product_id", "status", "has_access", "grants_pro", "changed_at")
SELECT 'legacy:' || "id", "id", NULL, "subscription_status", "is_pro", "is_pro", COALESCE("subscription_event_at", now())
FROM "users"
WHERE "is_pro" OR "subscription_status" IS NOT NULL OR "subscription_event_at" IS NOT NULL OR "payments_customer_id" IS NOT NULL;
