import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { agents } from "./agents";
import { organizations } from "./organizations";

/**
 * Agent tests (docs/agent-testing.md). Nothing here is a call: test calls and simulated conversations never appear in
 * `calls`, so they are never charged, counted in the overview, credits or usage, sent to webhooks, or suppressing.
 */

/** How an extracted variable's value is checked. */
export type TestValueMatcher =
  | { type: "exact"; value: string | number | boolean | null }
  | { type: "oneOf"; values: Array<string | number | boolean> }
  | { type: "regex"; pattern: string; flags?: string }
  | { type: "judge"; rubric: string };

/** What a simulated conversation must produce; every given field is one check. */
export type TestExpectations = {
  resultType?: string;
  /** Outcome names the result must carry (all of them). */
  outcomes?: string[];
  extractedVariables?: Array<{ slug: string; match: TestValueMatcher }>;
  toolsCalled?: string[];
  toolsNotCalled?: string[];
  meetingBooked?: boolean;
  /** The conversation ends within this many turns (agent and caller turns together). */
  maxTurns?: number;
};

export type TestContact = { name: string; email: string | null; timezone: string };

export const agentTestCases = pgTable(
  "agent_test_cases",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    agentId: text("agent_id").notNull().references(() => agents.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** Instructions for the simulated caller: who they are, what they want, how they behave. */
    persona: text("persona").notNull(),
    contact: jsonb("contact").$type<TestContact>().notNull(),
    inputVariables: jsonb("input_variables").$type<Record<string, string>>().notNull().default(sql`'{}'::jsonb`),
    expectations: jsonb("expectations").$type<TestExpectations>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("agent_test_cases_agent_idx").on(t.agentId, t.createdAt, t.id)],
);

export type TestRunStatus = "queued" | "running" | "completed" | "failed";

export const agentTestRuns = pgTable(
  "agent_test_runs",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    agentId: text("agent_id").notNull().references(() => agents.id, { onDelete: "cascade" }),
    promptVersionId: text("prompt_version_id").notNull(),
    status: text("status").$type<TestRunStatus>().notNull().default("queued"),
    /** Cases played at once. */
    concurrency: integer("concurrency").notNull(),
    total: integer("total").notNull(),
    passed: integer("passed").notNull().default(0),
    failed: integer("failed").notNull().default(0),
    /** `api` or `console`. */
    source: text("source").notNull(),
    createdByUserId: text("created_by_user_id"),
    error: text("error"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    startedAt: timestamp("started_at", { withTimezone: true, mode: "date" }),
    completedAt: timestamp("completed_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [index("agent_test_runs_agent_idx").on(t.agentId, t.createdAt, t.id), index("agent_test_runs_version_idx").on(t.promptVersionId, t.createdAt)],
);

export type TestResultStatus = "pending" | "passed" | "failed" | "error";
export type TestCheck = { expectation: string; passed: boolean; reason: string };
export type TestTurn = { speaker: "agent" | "customer"; text: string };
export type TestToolCall = { name: string; arguments: Record<string, unknown>; result: { ok: boolean; message: string; data?: Record<string, unknown> } };

/** One case of one run. The case's name and expectations are copied: history survives edits and deletion of the case. */
export const agentTestResults = pgTable(
  "agent_test_results",
  {
    id: text("id").primaryKey(),
    runId: text("run_id")
      .notNull()
      .references(() => agentTestRuns.id, { onDelete: "cascade" }),
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    caseId: text("case_id").notNull(),
    caseName: text("case_name").notNull(),
    position: integer("position").notNull(),
    /** The case as it was when the run started (persona, contact, variables, expectations). */
    caseSnapshot: jsonb("case_snapshot").$type<{ persona: string; contact: TestContact; inputVariables: Record<string, string>; expectations: TestExpectations }>().notNull(),
    status: text("status").$type<TestResultStatus>().notNull().default("pending"),
    checks: jsonb("checks").$type<TestCheck[]>().notNull().default(sql`'[]'::jsonb`),
    transcript: jsonb("transcript").$type<TestTurn[]>().notNull().default(sql`'[]'::jsonb`),
    toolCalls: jsonb("tool_calls").$type<TestToolCall[]>().notNull().default(sql`'[]'::jsonb`),
    /** The call-result payload the webhook would carry for this conversation (same builder). */
    payload: jsonb("payload").$type<Record<string, unknown>>(),
    turns: integer("turns").notNull().default(0),
    error: text("error"),
    durationMs: integer("duration_ms"),
    completedAt: timestamp("completed_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [uniqueIndex("agent_test_results_run_case_idx").on(t.runId, t.caseId), index("agent_test_results_run_idx").on(t.runId, t.position)],
);

export type TestCallStatus = "pending" | "live" | "analyzing" | "completed" | "failed" | "expired";
export type TestCallLine = { itemId: string; speaker: "agent" | "customer"; text: string; offsetMs: number };
export type TestCallToolCall = TestToolCall & { offsetMs: number };

/** A browser test call: talk to the agent through the microphone (the same Realtime session a phone call runs). */
export const agentTestCalls = pgTable(
  "agent_test_calls",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    agentId: text("agent_id").notNull().references(() => agents.id, { onDelete: "cascade" }),
    promptVersionId: text("prompt_version_id").notNull(),
    createdByUserId: text("created_by_user_id"),
    contact: jsonb("contact").$type<TestContact>().notNull(),
    inputVariables: jsonb("input_variables").$type<Record<string, string>>().notNull().default(sql`'{}'::jsonb`),
    status: text("status").$type<TestCallStatus>().notNull().default("pending"),
    /** SHA-256 of the single-use WebSocket ticket; cleared when it is used. */
    ticketHash: text("ticket_hash"),
    ticketExpiresAt: timestamp("ticket_expires_at", { withTimezone: true, mode: "date" }),
    lines: jsonb("lines").$type<TestCallLine[]>().notNull().default(sql`'[]'::jsonb`),
    toolCalls: jsonb("tool_calls").$type<TestCallToolCall[]>().notNull().default(sql`'[]'::jsonb`),
    /** Per agent turn: the caller's end of speech → the agent's first audio, in ms. */
    latenciesMs: jsonb("latencies_ms").$type<number[]>().notNull().default(sql`'[]'::jsonb`),
    recordingKey: text("recording_key"),
    durationSeconds: integer("duration_seconds"),
    payload: jsonb("payload").$type<Record<string, unknown>>(),
    error: text("error"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    startedAt: timestamp("started_at", { withTimezone: true, mode: "date" }),
    endedAt: timestamp("ended_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [index("agent_test_calls_agent_idx").on(t.agentId, t.createdAt, t.id), uniqueIndex("agent_test_calls_ticket_idx").on(t.ticketHash)],
);
