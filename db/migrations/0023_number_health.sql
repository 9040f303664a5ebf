CREATE TABLE "number_daily_stats" (
	"organization_id" text NOT NULL,
	"phone_number" text NOT NULL,
	"day" date NOT NULL,
	"placed" integer DEFAULT 0 NOT NULL,
	"answered" integer DEFAULT 0 NOT NULL,
	"short_calls" integer DEFAULT 0 NOT NULL,
	"voicemail" integer DEFAULT 0 NOT NULL,
	"no_answer" integer DEFAULT 0 NOT NULL,
	"busy" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"opt_outs" integer DEFAULT 0 NOT NULL,
	"stops" integer DEFAULT 0 NOT NULL,
	"attestation_a" integer DEFAULT 0 NOT NULL,
	"attestation_b" integer DEFAULT 0 NOT NULL,
	"attestation_c" integer DEFAULT 0 NOT NULL,
	"strata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "number_daily_stats_organization_id_phone_number_day_pk" PRIMARY KEY("organization_id","phone_number","day")
);
--> statement-breakpoint
CREATE TABLE "number_health_monitors" (
	"number_id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"rest_statistic" double precision DEFAULT 0 NOT NULL,
	"rest_calls" integer DEFAULT 0 NOT NULL,
	"rest_answered" integer DEFAULT 0 NOT NULL,
	"rest_expected" double precision DEFAULT 0 NOT NULL,
	"watch_statistic" double precision DEFAULT 0 NOT NULL,
	"watch_calls" integer DEFAULT 0 NOT NULL,
	"watch_answered" integer DEFAULT 0 NOT NULL,
	"watch_expected" double precision DEFAULT 0 NOT NULL,
	"state_calls" integer DEFAULT 0 NOT NULL,
	"state_answered" integer DEFAULT 0 NOT NULL,
	"state_expected" double precision DEFAULT 0 NOT NULL,
	"version" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "event_types" jsonb DEFAULT '["call.result"]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "twilio_calls" ADD COLUMN "stir_status" text;--> statement-breakpoint
ALTER TABLE "number_daily_stats" ADD CONSTRAINT "number_daily_stats_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "number_health_monitors" ADD CONSTRAINT "number_health_monitors_number_id_numbers_id_fk" FOREIGN KEY ("number_id") REFERENCES "public"."numbers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "number_health_monitors" ADD CONSTRAINT "number_health_monitors_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "number_daily_stats_org_day_idx" ON "number_daily_stats" USING btree ("organization_id","day");--> statement-breakpoint
CREATE INDEX "number_health_monitors_org_idx" ON "number_health_monitors" USING btree ("organization_id");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_endpoint_event_idx" ON "webhook_deliveries" USING btree ("endpoint_id","message_id") WHERE kind = 'number.health_changed';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_unsent_events_idx" ON "webhook_deliveries" USING btree ("created_at") WHERE kind = 'number.health_changed' and status = 'pending' and attempt_count = 0;