CREATE TABLE "inngest_batch_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"partition" text NOT NULL,
	"function_id" text NOT NULL,
	"batch_key" text NOT NULL,
	"event_id" text NOT NULL,
	"event" jsonb NOT NULL,
	"flush_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "inngest_batch_events_batch_idx" ON "inngest_batch_events" USING btree ("partition","function_id","batch_key","id");--> statement-breakpoint
CREATE INDEX "inngest_batch_events_flush_idx" ON "inngest_batch_events" USING btree ("partition","flush_at");--> statement-breakpoint
INSERT INTO "inngest_batch_events" ("partition", "function_id", "batch_key", "event_id", "event", "flush_at")
SELECT b."partition", b."function_id", b."batch_key", e.entry->>'eventId', e.entry->'event', b."flush_at"
FROM "inngest_batches" b, jsonb_array_elements(b."events") WITH ORDINALITY AS e(entry, position)
ORDER BY b."created_at", b."id", e.position;--> statement-breakpoint
DROP TABLE "inngest_batches" CASCADE;
