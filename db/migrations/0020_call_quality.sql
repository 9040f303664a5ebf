ALTER TABLE "agents" ADD COLUMN "greeting_mode" text DEFAULT 'on-answer' NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "call_purpose" text;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "answered_by_actions" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "quality" jsonb;--> statement-breakpoint
ALTER TABLE "twilio_calls" ADD COLUMN "amd_duration_ms" integer;--> statement-breakpoint
ALTER TABLE "twilio_calls" ADD COLUMN "quality" jsonb;