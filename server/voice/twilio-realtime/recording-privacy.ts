import type { DbOrTx } from "@/db";
import type { RedactedSpan } from "@/db/schema";
import { redactRecording } from "@/server/services/privacy/recording-redaction";
import type { RecordingPayload } from "@/server/voice/types";
import { transcriptLinesOf, type TwilioCallRow } from "./call-state";

/**
 * The downloaded recording with the redacted turns silenced: the transcript lines' offsets are on the media stream's
 * clock; the recording starts at the answer, so the two are aligned on the callee's loudness (twilio_calls
 * .inbound_envelope), or, when the callee never spoke, on the time from the answer to the stream's start. Audio that
 * cannot be edited while turns were redacted is not kept at all.
 */
export async function redactDownloadedRecording(
  db: DbOrTx,
  row: TwilioCallRow,
  recording: RecordingPayload,
): Promise<{ recording: RecordingPayload | null; redactedSpans: RedactedSpan[] }> {
  const lines = await transcriptLinesOf(db, row.callId);
  if (!lines.some((line) => line.redactions.length > 0) || !recording.contentBase64) return { recording, redactedSpans: [] };
  const fallbackOffsetMs = row.answeredAt && row.streamStartedAt ? Math.max(0, row.streamStartedAt.getTime() - row.answeredAt.getTime()) : 0;
  const result = redactRecording({
    wav: new Uint8Array(Buffer.from(recording.contentBase64, "base64")),
    lines,
    envelope: row.inboundEnvelope && row.inboundEnvelopeStartMs !== null ? { bytes: new Uint8Array(Buffer.from(row.inboundEnvelope, "base64")), startMs: row.inboundEnvelopeStartMs } : null,
    fallbackOffsetMs,
  });
  if (result.status === "unreadable") return { recording: null, redactedSpans: result.spans };
  return { recording: { ...recording, contentBase64: Buffer.from(result.wav).toString("base64") }, redactedSpans: result.spans };
}
