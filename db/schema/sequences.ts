import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import type { AgentStep } from "./agents";
import type { CallQuality } from "./call-quality";
import type { ConsentRecord } from "./consent";
import type { CallDisclosures, RedactedSpan } from "./privacy";
import { agents } from "./agents";
import { organizations } from "./organizations";

export const lifecycleStatuses = ["in progress", "done", "cancelled", "failed"] as const;
export type LifecycleStatus = (typeof lifecycleStatuses)[number];

/** `active`: being dialed; `waiting`: a chained contact waiting for the group's current call to end. */
export type ChainStatus = "active" | "waiting";

export const sequences = pgTable(
  "sequences",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    agentId: text("agent_id").notNull().references(() => agents.id, { onDelete: "cascade" }),
    batchId: text("batch_id"),
    /** Position of the contact in its bulk request (unique per batch so a resumed batch never creates it twice). */
    batchIndex: integer("batch_index"),
    name: text("name").notNull(),
    phoneNumber: text("phone_number").notNull(),
    phoneNumberExt: text("phone_number_ext").notNull().default(""),
    toEmailAddress: text("to_email_address"),
    timezone: text("timezone").notNull(),
    customInputVariables: jsonb("custom_input_variables").$type<Record<string, string>>().notNull().default(sql`'{}'::jsonb`),
    /** Explicit first-call time requested at enrollment, if any. */
    scheduledAt: timestamp("scheduled_at", { withTimezone: true, mode: "date" }),
    bypassCallWindows: boolean("bypass_call_windows").notNull().default(false),
    /** The contact's consent to be called, as given at enrollment; null when none was given. */
    consent: jsonb("consent").$type<ConsentRecord>(),
    scheduledBy: text("scheduled_by").notNull(),
    /** Made by the demo seed: never dialed through a real voice engine (the dial gate's demo check). */
    demo: boolean("demo").notNull().default(false),
    lifecycleStatus: text("lifecycle_status").$type<LifecycleStatus>().notNull().default("in progress"),
    steps: jsonb("steps").$type<AgentStep[]>().notNull(),
    /** Chaining: `<groupByField>=<value>`; contacts with the same key run one after another. */
    groupKey: text("group_key"),
    groupByField: text("group_by_field"),
    chainPosition: integer("chain_position"),
    chainStatus: text("chain_status").$type<ChainStatus>(),
    /** The group member whose call handed over to this one (each member hands over at most once). */
    chainActivatedBy: text("chain_activated_by"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    endedAt: timestamp("ended_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    index("sequences_org_idx").on(t.organizationId, t.lifecycleStatus),
    index("sequences_agent_idx").on(t.agentId),
    index("sequences_vars_idx").using("gin", sql`${t.customInputVariables} jsonb_path_ops`),
    // A chain is one agent's contacts sharing a group key.
    index("sequences_group_idx").on(t.agentId, t.groupKey, t.chainPosition).where(sql`group_key is not null`),
    // The console's consent export: an organization's consent records by enrollment date.
    index("sequences_consent_idx").on(t.organizationId, t.createdAt, t.id).where(sql`consent is not null`),
    uniqueIndex("sequences_chain_activated_by_idx").on(t.chainActivatedBy),
    uniqueIndex("sequences_batch_idx").on(t.batchId, t.batchIndex),
  ],
);

export const resultTypes = [
  "Goal Completed",
  "Goal Not Completed",
  "Voicemail",
  "Busy",
  "No Conversation",
  "Opted Out",
  "Invalid Phone Number",
  "Cancelled",
  "Failed",
  "Scheduled",
  "Rescheduled",
  "Processing Analysis",
  "Calling",
] as const;
export type ResultType = (typeof resultTypes)[number];

export type CallDirection = "outbound" | "inbound";

export type CallAction = {
  description: string;
  status: string;
  actionKey: string;
  completedAt: string;
  metadata: Record<string, unknown>;
};
export type CallOutcome = { name: string; reasoning: string };
export type FollowUpMeetingDetails = { startTime: string; endTime: string; hostEmail: string; meetingLink: string };
export type CrmSchedulingDetails = {
  provider?: string;
  mode?: string;
  bookingUid?: string;
  status?: "booked" | "cancelled";
  workspaceId?: string;
  routeId?: string;
  cancelledAt?: string;
  error?: string;
};

export const calls = pgTable(
  "calls",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    agentId: text("agent_id").notNull().references(() => agents.id, { onDelete: "cascade" }),
    sequenceId: text("sequence_id").notNull().references(() => sequences.id, { onDelete: "cascade" }),
    /** 1-based position of this call among the sequence's steps. */
    stepNumber: integer("step_number").notNull(),
    /** `outbound` (a CALL step) or `inbound` (the contact called our number back; stepNumber 0, attempt counts them). */
    direction: text("direction").$type<CallDirection>().notNull().default("outbound"),
    attempt: integer("attempt").notNull().default(1),
    scheduledAt: timestamp("scheduled_at", { withTimezone: true, mode: "date" }).notNull(),
    resultType: text("result_type").$type<ResultType>().notNull().default("Scheduled"),
    fromPhoneNumber: text("from_phone_number").notNull().default(""),
    duration: integer("duration").notNull().default(0),
    promptVersionId: text("prompt_version_id"),
    rescheduledAt: timestamp("rescheduled_at", { withTimezone: true, mode: "date" }),
    summary: text("summary").notNull().default(""),
    transcript: text("transcript"),
    extractedVariables: jsonb("extracted_variables").$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    outcomes: jsonb("outcomes").$type<CallOutcome[]>().notNull().default(sql`'[]'::jsonb`),
    agentActions: jsonb("agent_actions").$type<CallAction[]>().notNull().default(sql`'[]'::jsonb`),
    humanActions: jsonb("human_actions").$type<CallAction[]>().notNull().default(sql`'[]'::jsonb`),
    followUpMeetingDetails: jsonb("follow_up_meeting_details").$type<FollowUpMeetingDetails | null>(),
    crmSchedulingDetails: jsonb("crm_scheduling_details").$type<CrmSchedulingDetails>().notNull().default(sql`'{}'::jsonb`),
    /** Storage key of the recording; null when there is none (or it was cleaned up). */
    recordingKey: text("recording_key"),
    recordingContentType: text("recording_content_type"),
    recordingDurationSeconds: integer("recording_duration_seconds"),
    recordingDeletedAt: timestamp("recording_deleted_at", { withTimezone: true, mode: "date" }),
    /** The audit trail of the call's disclosures and recording consent (server/services/privacy/disclosures.ts); null until dialed. */
    disclosures: jsonb("disclosures").$type<CallDisclosures>(),
    /** Spans of the recording silenced because the transcript there was redacted (recording milliseconds). */
    redactedSpans: jsonb("redacted_spans").$type<RedactedSpan[]>().notNull().default(sql`'[]'::jsonb`),
    /** When the transcript and analysis were removed, and why (`retention`); null while they are kept. */
    contentRemovedAt: timestamp("content_removed_at", { withTimezone: true, mode: "date" }),
    contentRemovedReason: text("content_removed_reason"),
    providerCallId: text("provider_call_id"),
    /** Call quality as the voice engine measured it (greeting, per-turn latency, interruptions, answerer); docs/call-quality.md. */
    quality: jsonb("quality").$type<CallQuality>(),
    /** How the call ended at the telephony level (voice engine): answered, voicemail, busy, no-answer, invalid-number, failed. */
    disposition: text("disposition"),
    /** The voice provider's error message for a failed call. */
    providerError: text("provider_error"),
    dialedAt: timestamp("dialed_at", { withTimezone: true, mode: "date" }),
    /**
     * The dial slot the dispatcher planned for this call under the dial-rate limits (organization and caller ID);
     * dispatch lag = dialedAt − max(scheduledAt, dialSlotAt). Null until the dispatcher claims the call.
     */
    dialSlotAt: timestamp("dial_slot_at", { withTimezone: true, mode: "date" }),
    /** Times the voice engine was asked to place this call (a refused or interrupted placement is tried again). */
    dialAttempts: integer("dial_attempts").notNull().default(0),
    /** The voice provider's last sign of life for this call (an event on POST /api/voice/events), for the watchdog. */
    providerEventAt: timestamp("provider_event_at", { withTimezone: true, mode: "date" }),
    /** When post-call analysis of this call last started (the watchdog times analysis out from here, not from the end). */
    analysisStartedAt: timestamp("analysis_started_at", { withTimezone: true, mode: "date" }),
    endedAt: timestamp("ended_at", { withTimezone: true, mode: "date" }),
    analyzedAt: timestamp("analyzed_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("calls_sequence_step_idx").on(t.sequenceId, t.stepNumber, t.attempt),
    index("calls_agent_scheduled_idx").on(t.agentId, t.scheduledAt),
    // Auto-pause's window: an agent's last dialed calls, newest first (db/queries/dial-limits.ts).
    index("calls_agent_dialed_idx").on(t.agentId, t.dialedAt).where(sql`dialed_at is not null`),
    index("calls_due_idx").on(t.scheduledAt).where(sql`result_type = 'Scheduled'`),
    index("calls_org_idx").on(t.organizationId),
    // The watchdog's scan: calls still in flight, oldest first.
    index("calls_in_flight_idx").on(t.updatedAt).where(sql`result_type in ('Calling', 'Processing Analysis')`),
    // The dispatcher's recovery scan: claimed calls the voice engine has not accepted yet (a crash, a refusal).
    index("calls_unplaced_idx").on(t.updatedAt).where(sql`result_type = 'Calling' and provider_call_id is null`),
    // The dispatcher's backpressure count: ended calls awaiting analysis, per organization (dispatch-admission.ts).
    index("calls_analysis_backlog_idx").on(t.organizationId).where(sql`result_type = 'Processing Analysis'`),
  ],
);

export type BulkBatchStatus = "accepted" | "creating" | "completed" | "failed";

/** A bulk enrollment request, durably recorded before the 202; sequences are materialized from `contacts`. */
export const bulkBatches = pgTable(
  "bulk_batches",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    agentId: text("agent_id").notNull().references(() => agents.id, { onDelete: "cascade" }),
    idempotencyKey: text("idempotency_key"),
    status: text("status").$type<BulkBatchStatus>().notNull().default("accepted"),
    total: integer("total").notNull(),
    accepted: integer("accepted").notNull(),
    createdCount: integer("created_count").notNull().default(0),
    /** The first 202 body, returned again on an idempotent replay. */
    response: jsonb("response").$type<Record<string, unknown>>().notNull(),
    /** Accepted, normalized contacts waiting to become sequences. */
    contacts: jsonb("contacts").$type<unknown[]>().notNull(),
    groupByField: text("group_by_field"),
    /** Snapshot of the agent at acceptance, so every chunk (also a resumed one) creates the same sequences. */
    steps: jsonb("steps").$type<AgentStep[]>().notNull().default(sql`'[]'::jsonb`),
    agentTimezone: text("agent_timezone"),
    promptVersionId: text("prompt_version_id"),
    scheduledBy: text("scheduled_by").notNull().default("api"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    completedAt: timestamp("completed_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [uniqueIndex("bulk_batches_idempotency_idx").on(t.organizationId, t.idempotencyKey)],
);
