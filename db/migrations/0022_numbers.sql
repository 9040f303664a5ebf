CREATE TABLE "numbers" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"phone_number" text NOT NULL,
	"carrier" text NOT NULL,
	"voice" boolean DEFAULT true NOT NULL,
	"sms" boolean DEFAULT false NOT NULL,
	"inbound" boolean DEFAULT true NOT NULL,
	"source" text NOT NULL,
	"status" text NOT NULL,
	"status_reason" text,
	"provider_sid" text,
	"region" text,
	"locality" text,
	"daily_call_cap" integer,
	"dialed_day" text,
	"dialed_count" integer DEFAULT 0 NOT NULL,
	"health" text DEFAULT 'healthy' NOT NULL,
	"health_reason" text,
	"health_changed_at" timestamp with time zone,
	"resting_until" timestamp with time zone,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"released_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "numbers" ADD CONSTRAINT "numbers_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "numbers_active_phone_number" ON "numbers" USING btree ("phone_number") WHERE "numbers"."status" = 'active';--> statement-breakpoint
CREATE UNIQUE INDEX "numbers_organization_phone_number" ON "numbers" USING btree ("organization_id","phone_number") WHERE "numbers"."status" <> 'released';--> statement-breakpoint
CREATE INDEX "numbers_phone_number" ON "numbers" USING btree ("phone_number");--> statement-breakpoint
-- Existing pools become owned numbers (docs/numbers.md "Existing pools"): a number listed by the agents of exactly one
-- organization becomes that organization's (`migrated`); a number listed by several organizations is `disputed` in
-- each of them and dialed by none until one proves it with a caller-ID validation call.
WITH listed AS (
  SELECT DISTINCT a.organization_id, n.value AS phone_number
  FROM "agents" a, jsonb_array_elements_text(a.phone_numbers) AS n(value)
  WHERE n.value ~ '^\+[1-9][0-9]{6,14}$'
), counted AS (
  SELECT organization_id, phone_number, count(*) OVER (PARTITION BY phone_number) AS holders FROM listed
)
INSERT INTO "numbers" ("id", "organization_id", "phone_number", "carrier", "voice", "sms", "inbound", "source", "status", "status_reason")
SELECT
  'number.' || substr(md5(random()::text || clock_timestamp()::text || organization_id || phone_number), 1, 26),
  organization_id, phone_number, 'twilio', true, true, true, 'migrated',
  CASE WHEN holders = 1 THEN 'active' ELSE 'disputed' END,
  CASE WHEN holders = 1 THEN NULL ELSE 'Listed by ' || holders || ' organizations before numbers were owned: prove it with a caller-ID validation call.' END
FROM counted;
