CREATE TABLE "call_transcript_lines" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"call_id" text NOT NULL,
	"item_id" text NOT NULL,
	"speaker" text NOT NULL,
	"text" text NOT NULL,
	"offset_ms" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "twilio_calls" (
	"call_id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"call_sid" text,
	"dial_started_at" timestamp with time zone NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"answered_by" text,
	"answered_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"duration_seconds" integer,
	"sip_response_code" integer,
	"error_code" integer,
	"error_message" text,
	"recording_sid" text,
	"recording_status" text,
	"recording_duration_seconds" integer,
	"stream_sid" text,
	"stream_started_at" timestamp with time zone,
	"stream_ended_at" timestamp with time zone,
	"hangup_reason" text,
	"failure_reason" text,
	"voicemail_message" text,
	"ended_reported_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "voicemail_message" text;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "ring_timeout_seconds" integer DEFAULT 30 NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "max_call_seconds" integer DEFAULT 600 NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "voice" text DEFAULT 'marin' NOT NULL;--> statement-breakpoint
ALTER TABLE "call_transcript_lines" ADD CONSTRAINT "call_transcript_lines_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "call_transcript_lines" ADD CONSTRAINT "call_transcript_lines_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "twilio_calls" ADD CONSTRAINT "twilio_calls_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "twilio_calls" ADD CONSTRAINT "twilio_calls_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "call_transcript_lines_item_idx" ON "call_transcript_lines" USING btree ("call_id","item_id");--> statement-breakpoint
CREATE INDEX "call_transcript_lines_call_idx" ON "call_transcript_lines" USING btree ("call_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "twilio_calls_call_sid_idx" ON "twilio_calls" USING btree ("call_sid");--> statement-breakpoint
CREATE INDEX "twilio_calls_org_idx" ON "twilio_calls" USING btree ("organization_id");