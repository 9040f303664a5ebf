CREATE TABLE "api_rate_limit_logs" (
	"key" text PRIMARY KEY NOT NULL,
	"hits" bigint[] NOT NULL,
	"last_allowed" boolean DEFAULT true NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "api_rate_limit_logs_expires_at_idx" ON "api_rate_limit_logs" USING btree ("expires_at");