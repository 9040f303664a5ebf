import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgEnum, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import type { AnswerMoves } from "@/server/voice/answer-classifier/answer-moves";
import type { AnsweredByActions, GreetingMode } from "./call-quality";
import type { StepType } from "./kinds";
import { organizations } from "./organizations";

export const agentStatus = pgEnum("agent_status", ["ACTIVE", "PAUSED", "ARCHIVED"]);

export type TimeWindow = { startTime: number; endTime: number };
export type AgentStep = {
  stepType: StepType;
  /** EMAIL: the subject template (docs/sequences.md "Templates"). */
  subject?: string | null;
  /** EMAIL and SMS: the body template. */
  body?: string | null;
  delaySeconds: number;
  delaySecondsMax: number | null;
  executionWindowConfig: { dayOffset: number; timeWindow: TimeWindow; timezoneSource: "contact" | "agent" };
};

/** `manual`: a person paused the agent; `auto-pause`: the failure-rate rule did. */
export type AgentPauseSource = "manual" | "auto-pause";

export type BookingMode = "link" | "crm" | "concierge";
export type BookingConfig = {
  mode: BookingMode;
  provider: "chili-piper";
  /** link mode */
  schedulingLinkId?: string;
  /** crm mode */
  routerId?: string;
  distributionId?: string;
  workspaceId?: string;
  bookerId?: string;
  /** concierge mode: the router's stable ID; its address is looked up at call time */
  conciergeRouterId?: string;
};

/** Handing a call to a person (server/voice/transfer-settings.ts has the rules). */
export type TransferTarget = {
  label: string;
  /** E.164 (`+14155550100`) or a SIP URI (`sip:sales@pbx.example.com`). */
  destination: string;
  /** When the agent should pick this target ("pricing questions", "an invoice"). */
  whenToUse: string;
};
export type TransferConfig = {
  mode: "cold" | "warm";
  targets: TransferTarget[];
  /** Warm: seconds the target may ring (required); cold: the `<Dial timeout>` (default 30). */
  answerTimeoutSeconds: number | null;
  /** When a person can take a call, e.g. `Mon-Fri 09:00-17:00; Sat 10:00-13:00`; null = always. */
  hours: string | null;
  /** The hours' IANA zone; null = the agent's first timezone. */
  timezone: string | null;
  fallback: "book_meeting" | "take_message" | "callback";
};

export const agents = pgTable(
  "agents",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    status: agentStatus("status").notNull().default("ACTIVE"),
    timezones: jsonb("timezones").$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    phoneNumbers: jsonb("phone_numbers").$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    steps: jsonb("steps").$type<AgentStep[]>().notNull().default(sql`'[]'::jsonb`),
    bookingConfig: jsonb("booking_config").$type<BookingConfig | null>(),
    currentPromptVersionId: text("current_prompt_version_id"),
    /** Real voice engine: spoken after the beep when a call reaches voicemail; null leaves no message. */
    voicemailMessage: text("voicemail_message"),
    /** Real voice engine: seconds the phone may ring before the call counts as not answered. */
    ringTimeoutSeconds: integer("ring_timeout_seconds").notNull().default(30),
    /** Real voice engine: the longest a connected call may last; the provider hangs up then. */
    maxCallSeconds: integer("max_call_seconds").notNull().default(600),
    /** Real voice engine: the speech-to-speech model's voice. */
    voice: text("voice").notNull().default("marin"),
    /** Handing a call to a person: targets, cold or warm, hours, fallback; null = the agent never transfers. */
    transferConfig: jsonb("transfer_config").$type<TransferConfig | null>(),
    /** Where the agent heads when a call reaches a phone menu; null = towards a person. */
    phoneMenuGoal: text("phone_menu_goal"),
    /** Real voice engine: `on-answer` greets as the stream starts; `wait-for-callee` lets the callee speak first. */
    greetingMode: text("greeting_mode").$type<GreetingMode>().notNull().default("on-answer"),
    /** Real voice engine: why the agent calls, in a few words (what it tells an automated call screener). */
    callPurpose: text("call_purpose"),
    /** Real voice engine: what the agent does for each class of answerer (left-out classes take the defaults). */
    answeredByActions: jsonb("answered_by_actions").$type<AnsweredByActions>().notNull().default(sql`'{}'::jsonb`),
    /** The agent's move per class of answerer the answer classifier decides (partial; left-out classes take the defaults). */
    answerMoves: jsonb("answer_moves").$type<AnswerMoves>().notNull().default(sql`'{}'::jsonb`),
    /** Disclosures (docs/compliance.md): the identification spoken first on every connected call; null = the default text. */
    disclosureIdentification: text("disclosure_identification"),
    /** The recording notice spoken after the identification where it is needed; null = the default text. */
    disclosureRecordingNotice: text("disclosure_recording_notice"),
    /** `by-state`: the notice only where the number's area code maps to an all-party-consent state; `always`: on every call. */
    recordingNoticeMode: text("recording_notice_mode").$type<"by-state" | "always">().notNull().default("by-state"),
    /** Any SMS reply from the contact ends the sequence as `done` (an opt-out always does). */
    replyEndsSequence: boolean("reply_ends_sequence").notNull().default(false),
    /** Calls of this agent in the air at once; null = no agent limit (the organization's still applies). */
    maxConcurrentCalls: integer("max_concurrent_calls"),
    /** Credits this agent may spend per day (the day of its first timezone); null = no cap. */
    dailyCreditCap: integer("daily_credit_cap"),
    /** Auto-pause: the agent is paused when more than `autoPauseFailurePercent` % of its last `autoPauseWindowCalls` calls were Failed or Invalid Phone Number. */
    autoPauseEnabled: boolean("auto_pause_enabled").notNull().default(true),
    autoPauseWindowCalls: integer("auto_pause_window_calls").notNull().default(50),
    autoPauseFailurePercent: integer("auto_pause_failure_percent").notNull().default(30),
    /** Why the agent is PAUSED (null when it is not, or no reason was given); `pauseSource` says who paused it. */
    pauseReason: text("pause_reason"),
    pauseSource: text("pause_source").$type<AgentPauseSource>(),
    pausedAt: timestamp("paused_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("agents_org_created_idx").on(t.organizationId, t.createdAt, t.id)],
);

export const promptVersions = pgTable(
  "prompt_versions",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id").notNull().references(() => agents.id, { onDelete: "cascade" }),
    prompt: text("prompt").notNull(),
    createdByUserId: text("created_by_user_id"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("prompt_versions_agent_idx").on(t.agentId, t.createdAt)],
);

export const inputVariableDefinitions = pgTable(
  "input_variable_definitions",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id").notNull().references(() => agents.id, { onDelete: "cascade" }),
    slug: text("slug").notNull(),
    displayName: text("display_name").notNull(),
    description: text("description").notNull().default(""),
    required: boolean("required").notNull().default(false),
    position: integer("position").notNull().default(0),
    deletedAt: timestamp("deleted_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("input_variable_definitions_slug_idx").on(t.agentId, t.slug).where(sql`deleted_at is null`)],
);

export const extractedVariableTypes = ["STRING", "NUMBER", "BOOLEAN", "DROPDOWN", "DATE/TIME"] as const;
export type ExtractedVariableType = (typeof extractedVariableTypes)[number];

export const extractedVariableDefinitions = pgTable(
  "extracted_variable_definitions",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id").notNull().references(() => agents.id, { onDelete: "cascade" }),
    slug: text("slug").notNull(),
    displayName: text("display_name").notNull(),
    description: text("description").notNull().default(""),
    type: text("type").$type<ExtractedVariableType>().notNull(),
    dropdownOptions: jsonb("dropdown_options").$type<string[] | null>(),
    datetimeFormat: text("datetime_format"),
    formatDatetimeInUtc: boolean("format_datetime_in_utc"),
    systemDefault: boolean("system_default").notNull().default(false),
    position: integer("position").notNull().default(0),
    deletedAt: timestamp("deleted_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("extracted_variable_definitions_agent_idx").on(t.agentId)],
);

export const outcomeDefinitions = pgTable(
  "outcome_definitions",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id").notNull().references(() => agents.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    enabled: boolean("enabled").notNull().default(true),
    customerDefined: boolean("customer_defined").notNull().default(true),
    position: integer("position").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("outcome_definitions_agent_idx").on(t.agentId)],
);
