DROP INDEX "sequences_group_idx";--> statement-breakpoint
ALTER TABLE "bulk_batches" ADD COLUMN "steps" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "bulk_batches" ADD COLUMN "agent_timezone" text;--> statement-breakpoint
ALTER TABLE "bulk_batches" ADD COLUMN "prompt_version_id" text;--> statement-breakpoint
ALTER TABLE "bulk_batches" ADD COLUMN "scheduled_by" text DEFAULT 'api' NOT NULL;--> statement-breakpoint
ALTER TABLE "sequences" ADD COLUMN "chain_activated_by" text;--> statement-breakpoint
CREATE UNIQUE INDEX "sequences_chain_activated_by_idx" ON "sequences" USING btree ("chain_activated_by");--> statement-breakpoint
CREATE INDEX "sequences_group_idx" ON "sequences" USING btree ("agent_id","group_key","chain_position") WHERE group_key is not null;