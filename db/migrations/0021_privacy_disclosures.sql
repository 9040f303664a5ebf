ALTER TABLE "organizations" ADD COLUMN "redaction_categories" jsonb DEFAULT '["card","ssn","bank-account","routing-number","date-of-birth","email","phone"]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "redaction_patterns" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "retention_days" integer;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "keep_recordings" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "disclosure_identification" text;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "disclosure_recording_notice" text;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "recording_notice_mode" text DEFAULT 'by-state' NOT NULL;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "disclosures" jsonb;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "redacted_spans" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "content_removed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "content_removed_reason" text;--> statement-breakpoint
ALTER TABLE "call_transcript_lines" ADD COLUMN "end_offset_ms" integer;--> statement-breakpoint
ALTER TABLE "call_transcript_lines" ADD COLUMN "redactions" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "twilio_calls" ADD COLUMN "inbound_envelope" text;--> statement-breakpoint
ALTER TABLE "twilio_calls" ADD COLUMN "inbound_envelope_start_ms" integer;