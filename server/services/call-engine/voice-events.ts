import { eq, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { calls } from "@/db/schema";
import { bookMeetingForCall } from "@/server/services/calendar/book-meeting";
import { getRecordingStore } from "@/server/storage/recording-store";
import { saveTranscriptLine } from "@/server/voice/twilio-realtime/call-state";
import type { RecordingPayload, ToolCallResult, VoiceCallEndedEvent, VoiceProviderEvent } from "@/server/voice/types";

export type VoiceEventOutcome =
  | { status: "accepted"; callEnded: boolean; toolResult?: ToolCallResult }
  /** The event is about a call we do not know, or a provider call ID that does not match the call. */
  | { status: "unknown-call" }
  /** A repeated or late event: the call is already past that point. Nothing changed. */
  | { status: "ignored"; reason: string };

export type HandleVoiceEventParams = {
  event: VoiceProviderEvent;
  /** Download timeout for recordings hosted by the provider. */
  recordingDownloadTimeoutMs?: number;
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
      return { status: "accepted", callEnded: false, toolResult: await runBookingTool(db, event.callId, event.arguments, new Date(event.occurredAt)) };
    case "call.transcript":
      if (call.resultType !== "Calling") return { status: "ignored", reason: `call is ${call.resultType}` };
      await saveTranscriptLine(db, {
        organizationId: call.organizationId,
        callId: call.id,
        line: { itemId: event.itemId, speaker: event.speaker, text: event.text, offsetMs: event.offsetMs },
      });
      return { status: "accepted", callEnded: false };
    case "call.ended":
      return recordCallEnded(db, { ...call }, event, params.recordingDownloadTimeoutMs ?? 30_000);
  }
}

/** The provider's last sign of life for a call in the air: the watchdog times `Calling` out from here. */
async function recordSignOfLife(db: DbOrTx, callId: string, at: Date): Promise<void> {
  await db
    .update(calls)
    .set({ providerEventAt: sql`greatest(${calls.providerEventAt}, ${at.toISOString()}::timestamptz)` })
    .where(sql`${calls.id} = ${callId} and ${calls.resultType} = 'Calling'`);
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

async function loadRecording(recording: RecordingPayload, timeoutMs: number): Promise<Uint8Array | null> {
  if (recording.contentBase64) return new Uint8Array(Buffer.from(recording.contentBase64, "base64"));
  if (!recording.url) return null;
  try {
    const response = await fetch(recording.url, { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) return null;
    return new Uint8Array(await response.arrayBuffer());
  } catch {
    return null;
  }
}

/**
 * `Calling` → `Processing Analysis`: stores the duration, transcript, disposition and the recording (in the
 * recording store under `<organizationId>/<callId>.<ext>`; a call without retrievable audio keeps no key). The
 * audio is written before the row, so a retried event after a crash writes the same key again and nothing dangles.
 */
async function recordCallEnded(
  db: DbOrTx,
  call: { id: string; organizationId: string; resultType: string; providerCallId: string | null },
  event: VoiceCallEndedEvent,
  downloadTimeoutMs: number,
): Promise<VoiceEventOutcome> {
  if (call.resultType !== "Calling") return { status: "ignored", reason: `call is ${call.resultType}` };
  let recordingKey: string | null = null;
  let recordingContentType: string | null = null;
  if (event.recording) {
    const bytes = await loadRecording(event.recording, downloadTimeoutMs);
    if (bytes && bytes.byteLength > 0) {
      recordingContentType = event.recording.contentType;
      recordingKey = `${call.organizationId}/${call.id}.${recordingContentType.includes("wav") ? "wav" : recordingContentType.includes("mpeg") ? "mp3" : "bin"}`;
      await getRecordingStore().put(recordingKey, bytes, recordingContentType);
    }
  }
  const endedAt = new Date(event.occurredAt);
  const updated = await db
    .update(calls)
    .set({
      resultType: "Processing Analysis",
      providerCallId: call.providerCallId ?? event.providerCallId,
      disposition: event.disposition,
      providerError: event.errorMessage ?? null,
      duration: event.durationSeconds,
      transcript: event.transcript,
      recordingKey,
      recordingContentType,
      recordingDurationSeconds: recordingKey ? Math.round(event.recording?.durationSeconds ?? event.durationSeconds) : null,
      endedAt,
      updatedAt: sql`greatest(${calls.updatedAt}, ${endedAt.toISOString()}::timestamptz)`,
    })
    // Guarded: a concurrent duplicate (or the watchdog) may have moved the call on since it was read.
    .where(sql`${calls.id} = ${call.id} and ${calls.resultType} = 'Calling'`)
    .returning({ id: calls.id });
  if (updated.length === 0) return { status: "ignored", reason: "call is no longer Calling" };
  return { status: "accepted", callEnded: true };
}
