import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import type { TranscriptLineInput } from "@/server/voice/conversation/hooks";
import { callTranscriptLines, twilioCalls, type BridgeQuality, type TranscriptSpeaker } from "@/db/schema";
import { callQualityOf, mergeStreamQuality } from "@/server/voice/call-quality";
import type { CallDisposition, RecordingPayload, VoiceCallEndedEvent } from "@/server/voice/types";

export type TwilioCallRow = typeof twilioCalls.$inferSelect;

const FINAL_STATUSES = ["completed", "busy", "no-answer", "failed", "canceled"];
const STATUS_ORDER = ["queued", "initiated", "ringing", "in-progress"];
/** Twilio error codes that mean the number itself is invalid (REST 21211 at create, 13224 from the carrier). */
export const INVALID_NUMBER_ERRORS = [21211, 13224, 21214, 21217];

/** `answeredBy` of a callback that left a message with the number's fallback (a voicemail to us, docs/sequences.md). */
export const CALLER_MESSAGE = "caller-message";

export function isFinalStatus(status: string): boolean {
  return FINAL_STATUSES.includes(status);
}

export async function findTwilioCall(db: DbOrTx, callId: string): Promise<TwilioCallRow | null> {
  const [row] = await db.select().from(twilioCalls).where(eq(twilioCalls.callId, callId)).limit(1);
  return row ?? null;
}

/** Claims the dial of a call (one row per call ID); false when another attempt already holds it. */
export async function claimDial(db: DbOrTx, params: { callId: string; organizationId: string; now: Date }): Promise<boolean> {
  const inserted = await db
    .insert(twilioCalls)
    .values({ callId: params.callId, organizationId: params.organizationId, dialStartedAt: params.now, createdAt: params.now, updatedAt: params.now })
    .onConflictDoNothing()
    .returning({ callId: twilioCalls.callId });
  return inserted.length > 0;
}

/** A new dial attempt of a claim whose earlier attempt placed nothing (after a lookup at Twilio found no call). */
export async function restartDial(db: DbOrTx, params: { callId: string; now: Date; previousStartedAt: Date }): Promise<boolean> {
  const updated = await db
    .update(twilioCalls)
    .set({ dialStartedAt: params.now, updatedAt: params.now })
    .where(and(eq(twilioCalls.callId, params.callId), isNull(twilioCalls.callSid), eq(twilioCalls.dialStartedAt, params.previousStartedAt)))
    .returning({ callId: twilioCalls.callId });
  return updated.length > 0;
}

export async function releaseDial(db: DbOrTx, callId: string): Promise<void> {
  await db.delete(twilioCalls).where(and(eq(twilioCalls.callId, callId), isNull(twilioCalls.callSid)));
}

/** Binds Twilio's CallSid to our call (idempotent: a bound call keeps its SID). */
export async function bindCallSid(db: DbOrTx, params: { callId: string; callSid: string; now: Date }): Promise<void> {
  await db
    .update(twilioCalls)
    .set({ callSid: params.callSid, updatedAt: params.now })
    .where(and(eq(twilioCalls.callId, params.callId), isNull(twilioCalls.callSid)));
}

/** `calls.create` refused the number (21211…): the call is over before it started, as an invalid number. */
export async function recordRejectedDial(db: DbOrTx, params: { callId: string; callSid: string; errorCode: number | null; errorMessage: string; now: Date }) {
  await db
    .update(twilioCalls)
    .set({ callSid: params.callSid, status: "failed", errorCode: params.errorCode, errorMessage: params.errorMessage.slice(0, 500), completedAt: params.now, updatedAt: params.now })
    .where(eq(twilioCalls.callId, params.callId));
}

/**
 * Twilio's `StirStatus` as an attestation level: `A`, `B` or `C` (also read from the `TN-Validation-Passed-A` form
 * Twilio uses for verification results); null for anything else (absent, failed validation, no attestation).
 */
export function attestationOf(value: string | undefined): "A" | "B" | "C" | null {
  const match = /^(?:TN-Validation-Passed-)?([ABC])$/i.exec((value ?? "").trim());
  return match ? (match[1]!.toUpperCase() as "A" | "B" | "C") : null;
}

/**
 * A status callback. Statuses only move forward (queued → initiated → ringing → in-progress → a final one) and a
 * final status is never replaced, so repeated or out-of-order callbacks change nothing twice. Returns the row after.
 */
export async function applyStatusCallback(db: DbOrTx, params: { callId: string; form: Record<string, string>; now: Date }): Promise<TwilioCallRow | null> {
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(twilioCalls).where(eq(twilioCalls.callId, params.callId)).for("update");
    if (!row) return null;
    const status = params.form.CallStatus ?? "";
    // The carrier's STIR/SHAKEN attestation rides on `ringing` and `in-progress`, which may arrive late or out of
    // order: the first one reported is kept, whatever the status (docs/numbers.md "Number health").
    const attestation = attestationOf(params.form.StirStatus);
    if (attestation && !row.stirStatus) {
      const [attested] = await tx.update(twilioCalls).set({ stirStatus: attestation, updatedAt: params.now }).where(eq(twilioCalls.callId, params.callId)).returning();
      if (attested) Object.assign(row, attested);
    }
    if (isFinalStatus(row.status)) return row;
    const forward = isFinalStatus(status) || STATUS_ORDER.indexOf(status) > STATUS_ORDER.indexOf(row.status);
    if (!forward) return row;
    const changes: Partial<TwilioCallRow> = { status, updatedAt: params.now };
    if (status === "in-progress" && !row.answeredAt) changes.answeredAt = params.now;
    if (isFinalStatus(status)) {
      changes.completedAt = params.now;
      changes.durationSeconds = Number(params.form.CallDuration ?? 0) || 0;
      if (params.form.SipResponseCode) changes.sipResponseCode = Number(params.form.SipResponseCode) || null;
      if (params.form.ErrorCode && params.form.ErrorCode !== "0") changes.errorCode = Number(params.form.ErrorCode) || null;
      if (params.form.ErrorMessage) changes.errorMessage = params.form.ErrorMessage.slice(0, 500);
      // Twilio reports the answer through the final callback too when the `answered` event was not subscribed.
      if (!row.answeredAt && status === "completed" && changes.durationSeconds > 0) changes.answeredAt = params.now;
    }
    const [updated] = await tx.update(twilioCalls).set(changes).where(eq(twilioCalls.callId, params.callId)).returning();
    return updated ?? row;
  });
}

/** The asynchronous AMD result (and how long it took, Twilio's MachineDetectionDuration); the first one counts. Returns whether it was new. */
export async function applyAmdCallback(db: DbOrTx, params: { callId: string; answeredBy: string; durationMs?: number | null; now: Date }): Promise<boolean> {
  const updated = await db
    .update(twilioCalls)
    .set({ answeredBy: params.answeredBy, amdDurationMs: params.durationMs ?? null, updatedAt: params.now })
    .where(and(eq(twilioCalls.callId, params.callId), isNull(twilioCalls.answeredBy)))
    .returning({ callId: twilioCalls.callId });
  return updated.length > 0;
}

export async function applyRecordingCallback(
  db: DbOrTx,
  params: { callId: string; recordingSid: string; status: string; durationSeconds: number; now: Date },
): Promise<void> {
  await db
    .update(twilioCalls)
    .set({ recordingSid: params.recordingSid, recordingStatus: params.status, recordingDurationSeconds: params.durationSeconds, updatedAt: params.now })
    .where(and(eq(twilioCalls.callId, params.callId), sql`${twilioCalls.recordingStatus} is distinct from 'completed'`));
}

/** A call placed without recording (the organization keeps none): nothing to wait for when it ends. */
export async function markNotRecorded(db: DbOrTx, params: { callId: string; now: Date }): Promise<void> {
  await db.update(twilioCalls).set({ recordingStatus: "not-requested", updatedAt: params.now }).where(eq(twilioCalls.callId, params.callId));
}

/**
 * The stream's start, or its end with what the bridge measured on it and the callee's loudness envelope (in the same
 * write: the end makes the call finishable).
 */
export async function markStream(
  db: DbOrTx,
  params: {
    callId: string;
    event: "started" | "ended";
    streamSid?: string;
    now: Date;
    quality?: BridgeQuality | null;
    envelope?: { envelope: Uint8Array; envelopeStartMs: number } | null;
  },
): Promise<void> {
  let quality = params.quality ?? null;
  if (params.event === "ended" && quality) {
    // A later stream of the same call adds to what the earlier ones measured (one stream at a time per call).
    const [row] = await db.select({ quality: twilioCalls.quality, answeredAt: twilioCalls.answeredAt, streamStartedAt: twilioCalls.streamStartedAt }).from(twilioCalls).where(eq(twilioCalls.callId, params.callId));
    const offsetMs = row?.streamStartedAt && row.answeredAt ? row.streamStartedAt.getTime() - row.answeredAt.getTime() : 0;
    quality = mergeStreamQuality(row?.quality ?? null, quality, offsetMs);
  }
  // The first stream's envelope aligns the recording (it starts at the answer); later streams keep it.
  const envelope = params.envelope ? { inboundEnvelope: Buffer.from(params.envelope.envelope).toString("base64"), inboundEnvelopeStartMs: Math.round(params.envelope.envelopeStartMs) } : {};
  await db
    .update(twilioCalls)
    // A call may have several streams in turn (keys pressed, a transfer handed back): a new one is open until it ends.
    .set(
      params.event === "started"
        ? { streamSid: params.streamSid ?? null, streamStartedAt: params.now, streamEndedAt: null, updatedAt: params.now }
        : {
            streamEndedAt: params.now,
            updatedAt: params.now,
            ...(quality ? { quality } : {}),
            ...envelope,
            ...(params.envelope ? { inboundEnvelope: sql`coalesce(${twilioCalls.inboundEnvelope}, ${envelope.inboundEnvelope})`, inboundEnvelopeStartMs: sql`coalesce(${twilioCalls.inboundEnvelopeStartMs}, ${envelope.inboundEnvelopeStartMs})` } : {}),
          },
    )
    .where(
      params.event === "ended" && params.streamSid
        ? and(eq(twilioCalls.callId, params.callId), eq(twilioCalls.streamSid, params.streamSid))
        : eq(twilioCalls.callId, params.callId),
    );
}

/** Why we end the call ourselves; the first reason (and failure) stays. */
export async function recordHangup(db: DbOrTx, params: { callId: string; reason: string; failure?: string; voicemailMessage?: string | null; now: Date }): Promise<void> {
  await db
    .update(twilioCalls)
    .set({
      hangupReason: sql`coalesce(${twilioCalls.hangupReason}, ${params.reason})`,
      ...(params.failure ? { failureReason: sql`coalesce(${twilioCalls.failureReason}, ${params.failure})` } : {}),
      ...(params.voicemailMessage ? { voicemailMessage: params.voicemailMessage } : {}),
      updatedAt: params.now,
    })
    .where(eq(twilioCalls.callId, params.callId));
}

export type { TranscriptLineInput };

/**
 * Stores a spoken turn once (a later flush of the same item changes nothing). The text must already be redacted
 * (server/services/privacy/transcript-lines.ts `saveRedactedTranscriptLine`): this writes what it is given.
 */
export async function saveTranscriptLine(db: DbOrTx, params: { organizationId: string; callId: string; line: TranscriptLineInput }): Promise<void> {
  const { endOffsetMs, redactions, ...line } = params.line;
  await db
    .insert(callTranscriptLines)
    .values({
      organizationId: params.organizationId,
      callId: params.callId,
      ...line,
      offsetMs: Math.max(0, Math.round(line.offsetMs)),
      endOffsetMs: endOffsetMs === null || endOffsetMs === undefined ? null : Math.max(0, Math.round(endOffsetMs)),
      redactions: redactions ?? [],
    })
    .onConflictDoNothing();
}

export async function transcriptLinesOf(db: DbOrTx, callId: string) {
  return db.select().from(callTranscriptLines).where(eq(callTranscriptLines.callId, callId)).orderBy(asc(callTranscriptLines.offsetMs), asc(callTranscriptLines.id));
}

/** `Agent: …` / `Customer: …` lines (the call engine's transcript format), in spoken order. */
export function formatTranscriptLines(lines: Array<{ speaker: TranscriptSpeaker; text: string }>): string | null {
  const text = lines
    .filter((line) => line.text.trim())
    .map((line) => `${line.speaker === "agent" ? "Agent" : "Customer"}: ${line.text.trim()}`)
    .join("\n");
  return text || null;
}

/** What Twilio's facts (and our own failure, if any) mean as the call engine's disposition. */
export function dispositionOf(row: TwilioCallRow): { disposition: CallDisposition; errorMessage?: string } {
  if (row.failureReason) return { disposition: "failed", errorMessage: row.failureReason };
  if (row.errorCode && INVALID_NUMBER_ERRORS.includes(row.errorCode)) return { disposition: "invalid-number", errorMessage: row.errorMessage ?? `Twilio error ${row.errorCode}` };
  switch (row.status) {
    case "busy":
      return { disposition: "busy" };
    case "no-answer":
    case "canceled":
      return { disposition: "no-answer" };
    case "failed":
      return { disposition: "failed", errorMessage: row.errorMessage ?? `The carrier failed the call${row.sipResponseCode ? ` (SIP ${row.sipResponseCode})` : ""}.` };
    default:
      if (!row.answeredAt) return { disposition: "no-answer" };
      if (row.answeredBy && (/^(machine|fax)/.test(row.answeredBy) || row.answeredBy === CALLER_MESSAGE)) return { disposition: "voicemail" };
      // The model told a voicemail greeting that AMD took for a person (report_answered_by).
      if (row.quality?.modelClass === "machine") return { disposition: "voicemail" };
      return { disposition: "answered" };
  }
}

/** Reasons the call is not ready to be reported ended yet (empty: ready). */
export function pendingFinishReasons(row: TwilioCallRow, now: Date, waits: { recordingMs: number; streamMs: number }): string[] {
  if (!isFinalStatus(row.status) || !row.completedAt) return ["call in progress"];
  const since = now.getTime() - row.completedAt.getTime();
  const reasons: string[] = [];
  if (row.answeredAt && !row.recordingStatus && since < waits.recordingMs) reasons.push("recording pending");
  if (row.streamStartedAt && !row.streamEndedAt && since < waits.streamMs) reasons.push("media stream still open");
  return reasons;
}

/** The `call.ended` provider event of a finished Twilio call (the transcript from the stored lines). */
export async function buildCallEndedEvent(
  db: DbOrTx,
  row: TwilioCallRow,
  params: { now: Date; recording: RecordingPayload | null },
): Promise<VoiceCallEndedEvent> {
  const { disposition, errorMessage } = dispositionOf(row);
  const lines = await transcriptLinesOf(db, row.callId);
  const spoken = lines.map((line) => ({ speaker: line.speaker, text: line.text }));
  if (disposition === "voicemail" && row.voicemailMessage) spoken.push({ speaker: "agent", text: row.voicemailMessage });
  const connected = disposition === "answered" || disposition === "voicemail" || (disposition === "failed" && !!row.answeredAt);
  return {
    type: "call.ended",
    providerCallId: row.callSid ?? `unplaced:${row.callId}`,
    callId: row.callId,
    occurredAt: (row.completedAt ?? params.now).toISOString(),
    disposition,
    durationSeconds: row.durationSeconds ?? 0,
    transcript: connected ? formatTranscriptLines(spoken) : null,
    recording: params.recording,
    quality: row.answeredAt ? callQualityOf(row.quality ?? null, { result: row.answeredBy, durationMs: row.amdDurationMs }, row.streamStartedAt !== null) : null,
    ...(errorMessage ? { errorMessage: errorMessage.slice(0, 2000) } : {}),
  };
}

export async function markEndedReported(db: DbOrTx, params: { callId: string; now: Date }): Promise<void> {
  await db.update(twilioCalls).set({ endedReportedAt: params.now, updatedAt: params.now }).where(and(eq(twilioCalls.callId, params.callId), isNull(twilioCalls.endedReportedAt)));
}
