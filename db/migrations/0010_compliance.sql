CREATE TABLE "call_events" (
	"position" bigserial PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"call_id" text NOT NULL,
	"type" text NOT NULL,
	"message_id" text NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "max_concurrent_calls" integer;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "require_consent" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "max_concurrent_calls" integer;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "daily_credit_cap" integer;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "auto_pause_enabled" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "auto_pause_window_calls" integer DEFAULT 50 NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "auto_pause_failure_percent" integer DEFAULT 30 NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "pause_reason" text;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "pause_source" text;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "paused_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "opt_outs" ADD COLUMN "source" text DEFAULT 'call' NOT NULL;--> statement-breakpoint
ALTER TABLE "opt_outs" ADD COLUMN "reason" text;--> statement-breakpoint
ALTER TABLE "opt_outs" ADD COLUMN "created_by" text;--> statement-breakpoint
ALTER TABLE "sequences" ADD COLUMN "consent" jsonb;--> statement-breakpoint
ALTER TABLE "call_events" ADD CONSTRAINT "call_events_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "call_events_call_idx" ON "call_events" USING btree ("call_id","type");--> statement-breakpoint
CREATE INDEX "call_events_org_position_idx" ON "call_events" USING btree ("organization_id","position");--> statement-breakpoint
CREATE INDEX "call_events_org_agent_position_idx" ON "call_events" USING btree ("organization_id","agent_id","position");--> statement-breakpoint
CREATE INDEX "call_events_created_idx" ON "call_events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "opt_outs_org_created_idx" ON "opt_outs" USING btree ("organization_id","created_at","phone_number");--> statement-breakpoint
CREATE INDEX "sequences_consent_idx" ON "sequences" USING btree ("organization_id","created_at","id") WHERE consent is not null;