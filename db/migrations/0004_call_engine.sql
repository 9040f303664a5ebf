ALTER TABLE "calls" ADD COLUMN "disposition" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "provider_error" text;--> statement-breakpoint
CREATE INDEX "calls_in_flight_idx" ON "calls" USING btree ("updated_at") WHERE result_type in ('Calling', 'Processing Analysis');