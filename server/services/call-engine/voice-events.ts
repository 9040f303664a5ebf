import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { calls, callTranscriptLines } from "@/db/schema";
import { bookMeetingForCall } from "@/server/services/calendar/book-meeting";
import { getLogger } from "@/server/observability/logger";
import { observeCallQuality } from "@/server/observability/metrics";
import { downloadRecordingToStore, RecordingNotKeptError } from "@/server/storage/recording-download";
import { getRecordingStore } from "@/server/storage/recording-store";
import { isTrustedRecordingUrl } from "@/server/voice/recording-origins";
import { findCallRedactor, findStoredCallPrivacy, markDisclosureSpoken, markRecordingDeclined } from "@/server/services/privacy/call-privacy";
import { objectsToRecording } from "@/server/services/privacy/disclosures";
import { redactRecording, silenceRecordingSpans } from "@/server/services/privacy/recording-redaction";
import type { RedactedSpan } from "@/db/schema";
import type { RecordingPayload, ToolCallResult, VoiceCallEndedEvent, VoiceProviderEvent, VoiceTranscriptLine } from "@/server/voice/types";

export type VoiceEventOutcome =
  | { status: "accepted"; callEnded: boolean; toolResult?: ToolCallResult }
  /** The event is about a call we do not know, or a provider call ID that does not match the call. */
  | { status: "unknown-call" }
  /** A repeated or late event: the call is already past that point. Nothing changed. */
  | { status: "ignored"; reason: string };

export type HandleVoiceEventParams = {
  event: VoiceProviderEvent;
};

/**
 * Applies one (authenticated) voice provider event. Idempotent: providers retry webhooks, so a repeated
 * `call.ended` changes nothing and reports `ignored`. The caller sends `call/ended` after this returns
 * `callEnded: true` (the write is committed by then).
 */
export async function handleVoiceProviderEvent(db: DbOrTx, params: HandleVoiceEventParams): Promise<VoiceEventOutcome> {
  const { event } = params;
  const [call] = await db
    .select({
      id: calls.id,
      organizationId: calls.organizationId,
      resultType: calls.resultType,
      providerCallId: calls.providerCallId,
    })
    .from(calls)
    .where(eq(calls.id, event.callId))
    .limit(1);
  if (!call) return { status: "unknown-call" };
  // A call already bound to a provider call only accepts that call's events.
  if (call.providerCallId && call.providerCallId !== event.providerCallId) return { status: "unknown-call" };

  switch (event.type) {
    case "call.ringing":
    case "call.answered":
      if (call.resultType !== "Calling") return { status: "ignored", reason: `call is ${call.resultType}` };
      await recordSignOfLife(db, event.callId, new Date(event.occurredAt));
      return { status: "accepted", callEnded: false };
    case "call.tool":
      if (call.resultType !== "Calling") return { status: "ignored", reason: `call is ${call.resultType}` };
      await recordSignOfLife(db, event.callId, new Date(event.occurredAt));
      if (event.tool === "transfer_call") return { status: "accepted", callEnded: false, toolResult: await recordProviderTransfer(db, event.callId, event.arguments, new Date(event.occurredAt)) };
      return { status: "accepted", callEnded: false, toolResult: await runBookingTool(db, event.callId, event.arguments, new Date(event.occurredAt)) };
    case "call.transcript":
    case "call.transcript.batch": {
      if (call.resultType !== "Calling") return { status: "ignored", reason: `call is ${call.resultType}` };
      const lines = event.type === "call.transcript" ? [{ itemId: event.itemId, speaker: event.speaker, text: event.text, offsetMs: event.offsetMs, endOffsetMs: event.endOffsetMs }] : event.lines;
      await saveTranscriptLines(db, { organizationId: call.organizationId, callId: call.id, lines, occurredAt: new Date(event.occurredAt) });
      return { status: "accepted", callEnded: false };
    }
    case "call.disclosure":
      if (call.resultType !== "Calling") return { status: "ignored", reason: `call is ${call.resultType}` };
      await markDisclosureSpoken(db, { callId: call.id, kind: event.kind, offsetMs: event.offsetMs, at: new Date(event.occurredAt), via: event.via });
      return { status: "accepted", callEnded: false };
    case "call.recording":
      if (call.resultType !== "Calling") return { status: "ignored", reason: `call is ${call.resultType}` };
      await markRecordingDeclined(db, { callId: call.id, offsetMs: event.offsetMs, at: new Date(event.occurredAt), reason: event.reason });
      return { status: "accepted", callEnded: false };
    case "call.ended":
      return recordCallEnded(db, { ...call }, event);
  }
}

/**
 * A batch of spoken turns in one statement, redacted first (the unredacted text is never stored); each is stored once
 * per `itemId` (a repeated batch changes nothing). A contact who objects to the recording gets it marked declined
 * (the provider stops its own recording and says so with `call.recording`; this catches a provider that does not).
 */
async function saveTranscriptLines(db: DbOrTx, params: { organizationId: string; callId: string; lines: VoiceTranscriptLine[]; occurredAt: Date }): Promise<void> {
  const redactor = await findCallRedactor(db, params.callId);
  if (!redactor) return;
  const redacted = params.lines.map((line) => ({ line, ...redactor.redact(line.text) }));
  await db
    .insert(callTranscriptLines)
    .values(
      redacted.map(({ line, text, categories }) => ({
        organizationId: params.organizationId,
        callId: params.callId,
        itemId: line.itemId,
        speaker: line.speaker,
        text,
        offsetMs: line.offsetMs,
        endOffsetMs: line.endOffsetMs ?? null,
        redactions: categories,
      })),
    )
    .onConflictDoNothing();
  const objection = params.lines.find((line) => line.speaker === "customer" && objectsToRecording(line.text));
  if (objection) await markRecordingDeclined(db, { callId: params.callId, offsetMs: objection.offsetMs, at: params.occurredAt, reason: "the contact asked not to be recorded" });
}

/**
 * The provider's last sign of life for a call in the air: the watchdog times `Calling` out from here. Its events, and
 * the provider's answer that the call is still in the air when the watchdog asks.
 */
export async function recordSignOfLife(db: DbOrTx, callId: string, at: Date): Promise<void> {
  await db
    .update(calls)
    .set({ providerEventAt: sql`greatest(${calls.providerEventAt}, ${at.toISOString()}::timestamptz)` })
    .where(sql`${calls.id} = ${callId} and ${calls.resultType} = 'Calling'`);
}

/** A transfer a provider reports having made: recorded as the call's `transfer_call` action (metadata and webhook). */
async function recordProviderTransfer(db: DbOrTx, callId: string, args: Record<string, unknown>, occurredAt: Date): Promise<ToolCallResult> {
  const targetLabel = typeof args.targetLabel === "string" ? args.targetLabel.slice(0, 60) : "a person";
  const mode = args.mode === "warm" ? "warm" : "cold";
  const answered = args.answered === true;
  const humanLegSeconds = answered && typeof args.humanLegSeconds === "number" ? Math.max(0, Math.min(24 * 3600, Math.round(args.humanLegSeconds))) : 0;
  const outcome = typeof args.outcome === "string" ? args.outcome.slice(0, 40) : answered ? "completed" : "no-answer";
  const action = {
    description: answered ? `Transferred the call to ${targetLabel} (${mode})` : `Tried to transfer the call to ${targetLabel} (${mode}); nobody answered`,
    status: answered ? "completed" : "failed",
    actionKey: "transfer_call",
    completedAt: occurredAt.toISOString(),
    metadata: { targetLabel, mode, startedAt: occurredAt.toISOString(), answered, humanLegSeconds, outcome, reason: typeof args.reason === "string" ? args.reason.slice(0, 500) : "" },
  };
  await db
    .update(calls)
    .set({ agentActions: sql`${calls.agentActions} || ${JSON.stringify([action])}::jsonb` })
    .where(eq(calls.id, callId));
  return { ok: true, message: "recorded" };
}

async function runBookingTool(db: DbOrTx, callId: string, args: Record<string, unknown>, occurredAt: Date): Promise<ToolCallResult> {
  // The booking service opens its own transactions; inside a caller's transaction they are savepoints.
  const result = await bookMeetingForCall(db as Db, {
    callId,
    now: occurredAt,
    ...(typeof args.preferredStartTime === "string" ? { preferredStartTime: args.preferredStartTime } : {}),
    ...(typeof args.workspace === "string" ? { workspaceHint: args.workspace } : {}),
  });
  if (result.status === "skipped") return { ok: false, message: result.message };
  // The booking attempt is one of the agent's actions in the call result, whether it booked or not.
  if (!(result.status === "booked" && result.alreadyBooked)) {
    await db
      .update(calls)
      .set({ agentActions: sql`${calls.agentActions} || ${JSON.stringify([result.action])}::jsonb` })
      .where(eq(calls.id, callId));
  }
  if (result.status === "failed") return { ok: false, message: result.message, data: { errorCode: result.errorCode } };
  return {
    ok: true,
    message: `The invitation goes to the contact's email; the host is ${result.followUpMeetingDetails.hostEmail}.`,
    data: { ...result.followUpMeetingDetails },
  };
}

function recordingKeyOf(organizationId: string, callId: string, contentType: string): string {
  return `${organizationId}/${callId}.${contentType.includes("wav") ? "wav" : contentType.includes("mpeg") ? "mp3" : "bin"}`;
}

type StoredRecording = { key: string; contentType: string };

/**
 * The event's audio for the call. Inline audio is written to the recording store as is. A URL is never fetched here
 * (issue 38: a slow recording host held the event request, and the provider's next events, for up to 30 s): the call
 * keeps the URL as its key — an external key, `no-recording` to the API — and the analysis step downloads it before
 * it analyses the call (`downloadPendingRecordings`) when its origin is trusted (server/voice/recording-origins.ts).
 * A URL of an untrusted origin stays external. Null: no audio at all.
 */
async function storeRecording(call: { id: string; organizationId: string }, recording: RecordingPayload): Promise<StoredRecording | null> {
  const contentType = recording.contentType;
  if (recording.contentBase64) {
    const key = recordingKeyOf(call.organizationId, call.id, contentType);
    const bytes = new Uint8Array(Buffer.from(recording.contentBase64, "base64"));
    if (bytes.byteLength === 0) return null;
    await getRecordingStore().put(key, bytes, contentType);
    return { key, contentType };
  }
  if (!recording.url) return null;
  if (!isTrustedRecordingUrl(recording.url)) {
    getLogger("voice-events").warn({ callId: call.id }, "recording URL of an untrusted origin not downloaded (VOICE_RECORDING_URL_ORIGINS)");
  }
  return { key: recording.url, contentType };
}

/** Per-attempt timeouts of a recording download: two tries, as when the first was made during the `call.ended` request. */
const RECORDING_DOWNLOAD_TIMEOUTS_MS = [30_000, 10_000];

/**
 * The recordings the calls' `call.ended` left as a URL, downloaded before the analysis reads the calls: each trusted
 * URL is streamed into the recording store (two tries) and the call then points at the stored audio (`downloaded`).
 * A call with redacted spans (`calls.redacted_spans`, worked out when the call ended) gets its audio silenced over them
 * before it is stored; if that audio cannot be fetched or edited the recording is not kept (no key). Otherwise a failed
 * download keeps the URL (`no-recording`): it never holds up or loses the call. One query when there is nothing to
 * download (calls with inline audio, or none).
 */
export async function downloadPendingRecordings(db: DbOrTx, params: { callIds: string[]; timeoutsMs?: number[] }): Promise<number> {
  if (params.callIds.length === 0) return 0;
  const pending = await db
    .select({
      id: calls.id,
      organizationId: calls.organizationId,
      recordingKey: calls.recordingKey,
      recordingContentType: calls.recordingContentType,
      redactedSpans: calls.redactedSpans,
    })
    .from(calls)
    .where(and(inArray(calls.id, params.callIds), eq(calls.resultType, "Processing Analysis"), sql`${calls.recordingKey} ~* '^https?://'`));
  let stored = 0;
  await Promise.all(
    pending.map(async (call) => {
      const url = call.recordingKey!;
      if (!isTrustedRecordingUrl(url)) return;
      const contentType = call.recordingContentType ?? "audio/wav";
      const key = recordingKeyOf(call.organizationId, call.id, contentType);
      const spans = call.redactedSpans ?? [];
      const edit = spans.length > 0 ? (bytes: Uint8Array) => silenceRecordingSpans(bytes, spans) : undefined;
      let downloaded = false;
      for (const timeoutMs of params.timeoutsMs ?? RECORDING_DOWNLOAD_TIMEOUTS_MS) {
        try {
          await downloadRecordingToStore({ url, key, contentType, store: getRecordingStore(), timeoutMs, ...(edit ? { edit } : {}) });
          downloaded = true;
          break;
        } catch (error) {
          getLogger("voice-events").warn({ callId: call.id, err: error }, "recording download failed");
          if (error instanceof RecordingNotKeptError) break;
        }
      }
      // Redacted turns but no audio that could be silenced: the unredacted recording is not kept, not even its URL.
      if (!downloaded && spans.length === 0) return;
      const updated = await db
        .update(calls)
        .set(downloaded ? { recordingKey: key } : { recordingKey: null, recordingContentType: null, recordingDurationSeconds: null })
        .where(and(eq(calls.id, call.id), eq(calls.recordingKey, url)))
        .returning({ id: calls.id });
      if (downloaded) stored += updated.length;
    }),
  );
  return stored;
}

/**
 * `Calling` → `Processing Analysis`: stores the duration, transcript, disposition and the recording (inline audio in
 * the recording store under `<organizationId>/<callId>.<ext>`; a URL as the key, downloaded by the analysis step; a
 * call without audio keeps no key). Nothing is fetched over the network here. The audio is written before the row, so
 * a retried event after a crash writes the same key again and nothing dangles.
 */
async function recordCallEnded(
  db: DbOrTx,
  call: { id: string; organizationId: string; resultType: string; providerCallId: string | null },
  event: VoiceCallEndedEvent,
): Promise<VoiceEventOutcome> {
  if (call.resultType !== "Calling") return { status: "ignored", reason: `call is ${call.resultType}` };
  // One statement for the redactor and the organization's "keep recordings" (issue 38: it was three).
  const privacy = await findStoredCallPrivacy(db, call.id);
  const redactor = privacy?.redactor ?? null;
  const transcript = event.transcript && redactor ? redactor.redactText(event.transcript) : event.transcript;
  const { recording: safeRecording, redactedSpans } = await redactProviderRecording(db, call.id, event);
  const keepRecordings = privacy?.keepRecordings ?? true;
  const kept = keepRecordings ? safeRecording : null;
  const stored = kept ? await storeRecording(call, kept) : null;
  const recordingKey = stored?.key ?? null;
  const recordingContentType = stored?.contentType ?? null;
  const endedAt = new Date(event.occurredAt);
  const updated = await db
    .update(calls)
    .set({
      resultType: "Processing Analysis",
      providerCallId: call.providerCallId ?? event.providerCallId,
      disposition: event.disposition,
      providerError: event.errorMessage ?? null,
      duration: event.durationSeconds,
      transcript,
      redactedSpans,
      recordingKey,
      recordingContentType,
      recordingDurationSeconds: recordingKey ? Math.round(kept?.durationSeconds ?? event.durationSeconds) : null,
      quality: event.quality ?? null,
      // "Do not keep recordings": the audio was never stored; the API says `no-recording` for the retention reason.
      ...(!keepRecordings && event.recording ? { recordingDeletedAt: endedAt } : {}),
      endedAt,
      updatedAt: sql`greatest(${calls.updatedAt}, ${endedAt.toISOString()}::timestamptz)`,
    })
    // Guarded: a concurrent duplicate (or the watchdog) may have moved the call on since it was read.
    .where(sql`${calls.id} = ${call.id} and ${calls.resultType} = 'Calling'`)
    .returning({ id: calls.id });
  if (updated.length === 0) return { status: "ignored", reason: "call is no longer Calling" };
  if (event.quality) observeCallQuality(event.quality);
  return { status: "accepted", callEnded: true };
}

/**
 * The recording with the call's redacted turns silenced. A provider that did it already says where
 * (`redactedSpans`, the real engine); otherwise (the simulator) the stored lines' offsets are on the recording's own
 * clock. Inline audio is silenced here; a trusted URL keeps its spans (`calls.redacted_spans`) and is silenced when the
 * analysis step downloads it (`downloadPendingRecordings`). Audio that cannot be fetched or edited while turns were
 * redacted is not kept (an untrusted URL, here).
 */
async function redactProviderRecording(
  db: DbOrTx,
  callId: string,
  event: VoiceCallEndedEvent,
): Promise<{ recording: RecordingPayload | null; redactedSpans: RedactedSpan[] }> {
  if (event.redactedSpans) return { recording: event.recording, redactedSpans: event.redactedSpans };
  const lines = await db
    .select({ speaker: callTranscriptLines.speaker, offsetMs: callTranscriptLines.offsetMs, endOffsetMs: callTranscriptLines.endOffsetMs, redactions: callTranscriptLines.redactions })
    .from(callTranscriptLines)
    .where(eq(callTranscriptLines.callId, callId))
    .orderBy(asc(callTranscriptLines.offsetMs), asc(callTranscriptLines.id));
  if (!lines.some((line) => line.redactions.length > 0)) return { recording: event.recording, redactedSpans: [] };
  const recording = event.recording;
  const wav = recording?.contentBase64 ? new Uint8Array(Buffer.from(recording.contentBase64, "base64")) : null;
  // Without an envelope the spans follow from the lines alone: the same whether the audio is at hand or not.
  const result = redactRecording({ wav: wav ?? new Uint8Array(), lines, envelope: null, fallbackOffsetMs: 0 });
  if (recording && !recording.contentBase64 && recording.url && isTrustedRecordingUrl(recording.url)) return { recording, redactedSpans: result.spans };
  if (!recording || !wav || result.status === "unreadable") return { recording: null, redactedSpans: result.spans };
  return { recording: { contentType: "audio/wav", contentBase64: Buffer.from(result.wav).toString("base64"), durationSeconds: recording.durationSeconds }, redactedSpans: result.spans };
}
