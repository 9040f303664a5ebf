CREATE TABLE "inngest_attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"step_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"outcome" text NOT NULL,
	"http_status" integer,
	"error" jsonb,
	"runner_id" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"duration_ms" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "inngest_cron_schedules" (
	"partition" text NOT NULL,
	"function_id" text NOT NULL,
	"cron" text NOT NULL,
	"next_at" timestamp with time zone NOT NULL,
	"last_fired_at" timestamp with time zone,
	CONSTRAINT "inngest_cron_schedules_partition_function_id_cron_pk" PRIMARY KEY("partition","function_id","cron")
);
--> statement-breakpoint
CREATE TABLE "inngest_events" (
	"id" text PRIMARY KEY NOT NULL,
	"external_id" text,
	"name" text NOT NULL,
	"payload" jsonb NOT NULL,
	"received_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "inngest_functions" (
	"id" text PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"name" text NOT NULL,
	"config" jsonb NOT NULL,
	"registered_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "inngest_idempotency_keys" (
	"function_id" text NOT NULL,
	"key" text NOT NULL,
	"run_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "inngest_idempotency_keys_function_id_key_pk" PRIMARY KEY("function_id","key")
);
--> statement-breakpoint
CREATE TABLE "inngest_jobs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"partition" text NOT NULL,
	"function_id" text NOT NULL,
	"kind" text NOT NULL,
	"step_id" text NOT NULL,
	"attempt" integer DEFAULT 0 NOT NULL,
	"run_at" timestamp with time zone NOT NULL,
	"concurrency_keys" text[] DEFAULT '{}'::text[] NOT NULL,
	"concurrency_limits" integer[] DEFAULT '{}'::int[] NOT NULL,
	"lease_token" text,
	"lease_owner" text,
	"lease_expires_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "inngest_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"partition" text NOT NULL,
	"function_id" text NOT NULL,
	"status" text NOT NULL,
	"event_id" text,
	"event" jsonb NOT NULL,
	"stack" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"output" jsonb,
	"error" jsonb,
	"concurrency" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"idempotency_key" text,
	"parent_run_id" text,
	"parent_step_id" text,
	"cancelled_by_event_id" text,
	"created_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "inngest_steps" (
	"run_id" text NOT NULL,
	"hashed_id" text NOT NULL,
	"step_id" text NOT NULL,
	"display_name" text NOT NULL,
	"op" text NOT NULL,
	"status" text NOT NULL,
	"data" jsonb,
	"error" jsonb,
	"attempts" integer DEFAULT 0 NOT NULL,
	"wake_at" timestamp with time zone,
	"wait_event" text,
	"wait_expression" text,
	"wait_match_path" text[],
	"wait_match_value" jsonb,
	"wait_conditions" jsonb,
	"invoke_run_id" text,
	"created_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "inngest_steps_run_id_hashed_id_pk" PRIMARY KEY("run_id","hashed_id")
);
--> statement-breakpoint
CREATE INDEX "inngest_attempts_run_idx" ON "inngest_attempts" USING btree ("run_id","id");--> statement-breakpoint
CREATE INDEX "inngest_events_external_idx" ON "inngest_events" USING btree ("external_id") WHERE "inngest_events"."external_id" is not null;--> statement-breakpoint
CREATE INDEX "inngest_events_received_idx" ON "inngest_events" USING btree ("received_at");--> statement-breakpoint
CREATE UNIQUE INDEX "inngest_jobs_pending_idx" ON "inngest_jobs" USING btree ("run_id","kind","step_id") WHERE "inngest_jobs"."lease_token" is null;--> statement-breakpoint
CREATE INDEX "inngest_jobs_due_idx" ON "inngest_jobs" USING btree ("partition","run_at");--> statement-breakpoint
CREATE INDEX "inngest_jobs_run_idx" ON "inngest_jobs" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "inngest_jobs_concurrency_idx" ON "inngest_jobs" USING gin ("concurrency_keys");--> statement-breakpoint
CREATE INDEX "inngest_runs_created_idx" ON "inngest_runs" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "inngest_runs_function_status_idx" ON "inngest_runs" USING btree ("function_id","status");--> statement-breakpoint
CREATE INDEX "inngest_runs_status_idx" ON "inngest_runs" USING btree ("status");--> statement-breakpoint
CREATE INDEX "inngest_steps_waiting_idx" ON "inngest_steps" USING btree ("wait_event") WHERE "inngest_steps"."status" = 'waiting';