ALTER TABLE "organizations" ADD COLUMN "require_consent" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "sequences" ADD COLUMN "consent" jsonb;--> statement-breakpoint
CREATE INDEX "sequences_consent_idx" ON "sequences" USING btree ("organization_id","created_at","id") WHERE consent is not null;