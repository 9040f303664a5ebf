CREATE TABLE "call_transfers" (
	"id" text PRIMARY KEY NOT NULL,
	"call_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"mode" text NOT NULL,
	"target_label" text NOT NULL,
	"destination" text NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"conference_name" text,
	"leg_call_sid" text,
	"outcome" text DEFAULT 'dialing' NOT NULL,
	"whisper" text,
	"started_at" timestamp with time zone NOT NULL,
	"answered_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"human_leg_seconds" integer,
	"returned_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "transfer_config" jsonb;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "phone_menu_goal" text;--> statement-breakpoint
ALTER TABLE "call_transfers" ADD CONSTRAINT "call_transfers_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "call_transfers" ADD CONSTRAINT "call_transfers_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "call_transfers_call_idx" ON "call_transfers" USING btree ("call_id","started_at");--> statement-breakpoint
CREATE UNIQUE INDEX "call_transfers_leg_idx" ON "call_transfers" USING btree ("leg_call_sid");