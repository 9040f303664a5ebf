import { sql } from "drizzle-orm";
import { bigserial, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import type { BridgeQuality } from "./call-quality";
import { organizations } from "./organizations";
import { calls } from "./sequences";

/**
 * The Twilio side of a call placed by the real voice engine (`VOICE_ENGINE=twilio-realtime`): everything Twilio told
 * us through its signed callbacks, and what our media bridge did. Only the live Realtime session is in memory; this
 * row is what any instance reads to finish the call, so a callback or the media stream may land on any instance.
 */
export const twilioCalls = pgTable(
  "twilio_calls",
  {
    callId: text("call_id")
      .primaryKey()
      .references(() => calls.id, { onDelete: "cascade" }),
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    /** Twilio's CallSid (`CA…`), bound by `calls.create` or by the first callback that names it. */
    callSid: text("call_sid"),
    /** When `calls.create` was attempted (a claim: a second dialer waits or looks the call up at Twilio). */
    dialStartedAt: timestamp("dial_started_at", { withTimezone: true, mode: "date" }).notNull(),
    /** Twilio's last CallStatus (queued, initiated, ringing, in-progress, completed, busy, no-answer, failed, canceled). */
    status: text("status").notNull().default("queued"),
    /** Answering-machine detection: human, machine_start, machine_end_beep, fax, unknown… */
    answeredBy: text("answered_by"),
    /** Twilio's `MachineDetectionDuration`: how long AMD took to decide, from the answer (ms). */
    amdDurationMs: integer("amd_duration_ms"),
    answeredAt: timestamp("answered_at", { withTimezone: true, mode: "date" }),
    /** The STIR/SHAKEN attestation the carrier gave the call (Twilio's `StirStatus` on `ringing`/`in-progress`: A, B or C); null when none was reported. */
    stirStatus: text("stir_status"),
    completedAt: timestamp("completed_at", { withTimezone: true, mode: "date" }),
    durationSeconds: integer("duration_seconds"),
    sipResponseCode: integer("sip_response_code"),
    errorCode: integer("error_code"),
    errorMessage: text("error_message"),
    /** The recording (`RE…`) and its callback status: completed, absent, failed; null while none was reported. */
    recordingSid: text("recording_sid"),
    recordingStatus: text("recording_status"),
    recordingDurationSeconds: integer("recording_duration_seconds"),
    streamSid: text("stream_sid"),
    streamStartedAt: timestamp("stream_started_at", { withTimezone: true, mode: "date" }),
    streamEndedAt: timestamp("stream_ended_at", { withTimezone: true, mode: "date" }),
    /** Why we ended the call ourselves: end_call, voicemail, realtime-unavailable, realtime-lost. */
    hangupReason: text("hangup_reason"),
    /** Set when the conversation failed on our side (the Realtime model unreachable or lost): the call ends `failed`. */
    failureReason: text("failure_reason"),
    voicemailMessage: text("voicemail_message"),
    /** What our media bridge measured on this call's stream (written when the stream ends; server/voice/call-quality.ts). */
    quality: jsonb("quality").$type<BridgeQuality>(),
    /**
     * The loudness of the callee's first minute as the media stream carried it (one byte per 20 ms frame, base64),
     * and the stream timestamp of its first frame: the recording's callee channel is aligned on it before redacted
     * spans are silenced (server/services/privacy/recording-redaction.ts).
     */
    inboundEnvelope: text("inbound_envelope"),
    inboundEnvelopeStartMs: integer("inbound_envelope_start_ms"),
    /** When `call.ended` was handed to the call engine: exactly once per call. */
    endedReportedAt: timestamp("ended_reported_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("twilio_calls_call_sid_idx").on(t.callSid), index("twilio_calls_org_idx").on(t.organizationId)],
);

export type TranscriptSpeaker = "agent" | "customer";

/**
 * A call's transcript, one row per spoken turn, written while the call is live (a console can follow a call by
 * reading the lines after its cursor, `id`). `itemId` is the Realtime conversation item: a turn is stored once.
 */
export const callTranscriptLines = pgTable(
  "call_transcript_lines",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    callId: text("call_id")
      .notNull()
      .references(() => calls.id, { onDelete: "cascade" }),
    itemId: text("item_id").notNull(),
    speaker: text("speaker").$type<TranscriptSpeaker>().notNull(),
    text: text("text").notNull(),
    /** Milliseconds from the start of the media stream (the call's answer) to the start of the turn. */
    offsetMs: integer("offset_ms").notNull(),
    /** Where the turn ended (same clock as offsetMs), when the engine knows it. */
    endOffsetMs: integer("end_offset_ms"),
    /** Redaction categories whose markers the text carries (`card`, `ssn`…); empty when nothing was redacted. */
    redactions: jsonb("redactions").$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().default(sql`now()`),
  },
  (t) => [uniqueIndex("call_transcript_lines_item_idx").on(t.callId, t.itemId), index("call_transcript_lines_call_idx").on(t.callId, t.id)],
);

/**
 * A transfer of a live call to a person (docs/call-engine.md "Transfers"), one row per attempt: which target, cold or
 * warm, the human leg's Twilio call, and how it went. Any instance reads it: the target's callbacks and the caller's
 * return to the agent may land anywhere. `outcome`: dialing → answered → completed, or busy / no-answer / failed
 * (the agent came back).
 */
export const callTransfers = pgTable(
  "call_transfers",
  {
    id: text("id").primaryKey(),
    callId: text("call_id")
      .notNull()
      .references(() => calls.id, { onDelete: "cascade" }),
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    mode: text("mode").$type<"cold" | "warm">().notNull(),
    targetLabel: text("target_label").notNull(),
    destination: text("destination").notNull(),
    reason: text("reason").notNull().default(""),
    /** Warm: the conference the caller waits in and the person joins. */
    conferenceName: text("conference_name"),
    /** The human leg's CallSid (`CA…`): the warm leg we created, or the cold `<Dial>`'s child call. */
    legCallSid: text("leg_call_sid"),
    outcome: text("outcome").$type<"dialing" | "answered" | "completed" | "busy" | "no-answer" | "failed">().notNull().default("dialing"),
    /** What the person heard before being put through (warm). */
    whisper: text("whisper"),
    startedAt: timestamp("started_at", { withTimezone: true, mode: "date" }).notNull(),
    answeredAt: timestamp("answered_at", { withTimezone: true, mode: "date" }),
    endedAt: timestamp("ended_at", { withTimezone: true, mode: "date" }),
    /** Seconds the person was on the line (Twilio's leg duration). */
    humanLegSeconds: integer("human_leg_seconds"),
    /** When the caller was handed back to the agent (not answered in time). */
    returnedAt: timestamp("returned_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [index("call_transfers_call_idx").on(t.callId, t.startedAt), uniqueIndex("call_transfers_leg_idx").on(t.legCallSid)],
);
