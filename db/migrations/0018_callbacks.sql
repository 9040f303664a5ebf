CREATE TABLE "phone_number_settings" (
	"organization_id" text NOT NULL,
	"phone_number" text NOT NULL,
	"fallback_mode" text DEFAULT 'message' NOT NULL,
	"forward_to" text,
	"fallback_message" text,
	"updated_by" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "phone_number_settings_organization_id_phone_number_pk" PRIMARY KEY("organization_id","phone_number")
);
--> statement-breakpoint
ALTER TABLE "phone_number_settings" ADD CONSTRAINT "phone_number_settings_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;