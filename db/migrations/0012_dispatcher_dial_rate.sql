CREATE TABLE "dial_rate_cursors" (
	"key" text PRIMARY KEY NOT NULL,
	"next_slot_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "dial_rate_per_second" integer;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "dial_slot_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "dial_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "provider_event_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "analysis_started_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "calls_unplaced_idx" ON "calls" USING btree ("updated_at") WHERE result_type = 'Calling' and provider_call_id is null;