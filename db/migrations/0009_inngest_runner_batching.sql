CREATE TABLE "inngest_batches" (
	"id" text PRIMARY KEY NOT NULL,
	"partition" text NOT NULL,
	"function_id" text NOT NULL,
	"batch_key" text NOT NULL,
	"events" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"flush_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "inngest_event_ids" (
	"external_id" text PRIMARY KEY NOT NULL,
	"event_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "inngest_runs" ADD COLUMN "events" jsonb;--> statement-breakpoint
CREATE UNIQUE INDEX "inngest_batches_open_idx" ON "inngest_batches" USING btree ("partition","function_id","batch_key");--> statement-breakpoint
CREATE INDEX "inngest_batches_flush_idx" ON "inngest_batches" USING btree ("partition","flush_at");--> statement-breakpoint
CREATE INDEX "inngest_event_ids_expires_idx" ON "inngest_event_ids" USING btree ("expires_at");--> statement-breakpoint
-- Hand-written: event ids of the last 24 h move from inngest_events (where the runner looked them up before) to
-- inngest_event_ids, so deduplication keeps working across the upgrade.
INSERT INTO "inngest_event_ids" ("external_id", "event_id", "expires_at")
SELECT DISTINCT ON ("external_id") "external_id", "id", "received_at" + interval '24 hours'
FROM "inngest_events"
WHERE "external_id" IS NOT NULL AND "received_at" > now() - interval '24 hours'
ORDER BY "external_id", "received_at";
