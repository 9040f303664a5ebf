CREATE TABLE "email_suppressions" (
	"organization_id" text NOT NULL,
	"email" text NOT NULL,
	"source" text NOT NULL,
	"source_message_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "email_suppressions_organization_id_email_pk" PRIMARY KEY("organization_id","email")
);
--> statement-breakpoint
CREATE TABLE "sequence_messages" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"agent_id" text,
	"sequence_id" text,
	"step_number" integer,
	"channel" text NOT NULL,
	"direction" text DEFAULT 'outbound' NOT NULL,
	"status" text NOT NULL,
	"scheduled_at" timestamp with time zone NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"to_address" text DEFAULT '' NOT NULL,
	"from_address" text DEFAULT '' NOT NULL,
	"subject" text,
	"body" text DEFAULT '' NOT NULL,
	"html" text,
	"provider_message_id" text,
	"transport" text,
	"error" text,
	"error_code" text,
	"provider_status" text,
	"segments" integer,
	"credits" integer DEFAULT 0 NOT NULL,
	"sent_at" timestamp with time zone,
	"delivered_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "email_from" text;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "email_reply_to" text;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "sms_help_text" text;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "reply_ends_sequence" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "credit_transactions" ADD COLUMN "message_id" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "direction" text DEFAULT 'outbound' NOT NULL;--> statement-breakpoint
ALTER TABLE "email_suppressions" ADD CONSTRAINT "email_suppressions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sequence_messages" ADD CONSTRAINT "sequence_messages_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sequence_messages" ADD CONSTRAINT "sequence_messages_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sequence_messages" ADD CONSTRAINT "sequence_messages_sequence_id_sequences_id_fk" FOREIGN KEY ("sequence_id") REFERENCES "public"."sequences"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "sequence_messages_step_idx" ON "sequence_messages" USING btree ("sequence_id","step_number") WHERE direction = 'outbound';--> statement-breakpoint
CREATE INDEX "sequence_messages_sequence_idx" ON "sequence_messages" USING btree ("sequence_id","created_at");--> statement-breakpoint
CREATE INDEX "sequence_messages_due_idx" ON "sequence_messages" USING btree ("next_attempt_at") WHERE next_attempt_at is not null;--> statement-breakpoint
CREATE INDEX "sequence_messages_provider_idx" ON "sequence_messages" USING btree ("provider_message_id");--> statement-breakpoint
CREATE INDEX "sequence_messages_org_created_idx" ON "sequence_messages" USING btree ("organization_id","channel","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "credit_transactions_message_idx" ON "credit_transactions" USING btree ("message_id");