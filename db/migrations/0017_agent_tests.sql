CREATE TABLE "agent_test_calls" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"prompt_version_id" text NOT NULL,
	"created_by_user_id" text,
	"contact" jsonb NOT NULL,
	"input_variables" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"ticket_hash" text,
	"ticket_expires_at" timestamp with time zone,
	"lines" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"tool_calls" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"latencies_ms" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"recording_key" text,
	"duration_seconds" integer,
	"payload" jsonb,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "agent_test_cases" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"name" text NOT NULL,
	"persona" text NOT NULL,
	"contact" jsonb NOT NULL,
	"input_variables" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"expectations" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "agent_test_results" (
	"id" text PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"case_id" text NOT NULL,
	"case_name" text NOT NULL,
	"position" integer NOT NULL,
	"case_snapshot" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"checks" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"transcript" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"tool_calls" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"payload" jsonb,
	"turns" integer DEFAULT 0 NOT NULL,
	"error" text,
	"duration_ms" integer,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "agent_test_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"prompt_version_id" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"concurrency" integer NOT NULL,
	"total" integer NOT NULL,
	"passed" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"source" text NOT NULL,
	"created_by_user_id" text,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "agent_test_calls" ADD CONSTRAINT "agent_test_calls_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_test_calls" ADD CONSTRAINT "agent_test_calls_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_test_cases" ADD CONSTRAINT "agent_test_cases_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_test_cases" ADD CONSTRAINT "agent_test_cases_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_test_results" ADD CONSTRAINT "agent_test_results_run_id_agent_test_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."agent_test_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_test_results" ADD CONSTRAINT "agent_test_results_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_test_runs" ADD CONSTRAINT "agent_test_runs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_test_runs" ADD CONSTRAINT "agent_test_runs_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_test_calls_agent_idx" ON "agent_test_calls" USING btree ("agent_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "agent_test_calls_ticket_idx" ON "agent_test_calls" USING btree ("ticket_hash");--> statement-breakpoint
CREATE INDEX "agent_test_cases_agent_idx" ON "agent_test_cases" USING btree ("agent_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "agent_test_results_run_case_idx" ON "agent_test_results" USING btree ("run_id","case_id");--> statement-breakpoint
CREATE INDEX "agent_test_results_run_idx" ON "agent_test_results" USING btree ("run_id","position");--> statement-breakpoint
CREATE INDEX "agent_test_runs_agent_idx" ON "agent_test_runs" USING btree ("agent_id","created_at","id");--> statement-breakpoint
CREATE INDEX "agent_test_runs_version_idx" ON "agent_test_runs" USING btree ("prompt_version_id","created_at");