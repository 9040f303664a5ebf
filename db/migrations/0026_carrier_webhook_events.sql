CREATE TABLE "carrier_webhook_events" (
	"carrier" text NOT NULL,
	"event_id" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "carrier_webhook_events_carrier_event_id_pk" PRIMARY KEY("carrier","event_id")
);
--> statement-breakpoint
CREATE INDEX "carrier_webhook_events_received_at_idx" ON "carrier_webhook_events" USING btree ("received_at");