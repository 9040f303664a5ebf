import type { RedactedSpan } from "@/db/schema";
import { alignEnvelopes, readPcmWav, silenceWavSpans, wavChannelEnvelope } from "@/server/voice/pcm";

/** Silence kept around a redacted turn: VAD times are approximate, and a number read out may start before the turn. */
const PAD_BEFORE_MS = 400;
const PAD_AFTER_MS = 400;
/** A turn whose end is unknown (and is the last one) is silenced for this long. */
const UNKNOWN_END_MS = 15_000;
/** The media stream starts within this much of the answer (the recording's start). */
const MAX_ALIGNMENT_LAG_MS = 60_000;

export type RedactableLine = { speaker: "agent" | "customer"; offsetMs: number; endOffsetMs: number | null; redactions: string[] };

export type RecordingRedactionParams = {
  wav: Uint8Array;
  /** The call's transcript lines (their offsets on the engine's clock), in spoken order. */
  lines: RedactableLine[];
  /**
   * The callee's loudness per 20 ms on the engine's clock, from `startMs` (the real engine's media stream): the
   * recording's callee channel (channel 1) is aligned on it. Null: the clocks are taken to agree up to `fallbackOffsetMs`.
   */
  envelope: { bytes: Uint8Array; startMs: number } | null;
  /** Recording milliseconds of engine-clock 0 when no alignment is possible. */
  fallbackOffsetMs: number;
};

export type RecordingRedactionResult =
  /** `wav` is the recording with the spans silenced (the input, untouched, when nothing was redacted). */
  | { status: "redacted"; wav: Uint8Array; spans: RedactedSpan[]; aligned: boolean }
  /** Redacted turns, but audio we cannot edit: the recording must not be kept. */
  | { status: "unreadable"; spans: RedactedSpan[] };

/**
 * The recording made safe to keep: every span whose transcript turn was redacted is silenced on all channels (the
 * transcript's offsets say where, after aligning the engine's clock with the recording's).
 */
export function redactRecording(params: RecordingRedactionParams): RecordingRedactionResult {
  const redacted = params.lines.map((line, index) => ({ line, next: params.lines[index + 1] ?? null })).filter(({ line }) => line.redactions.length > 0);
  if (redacted.length === 0) return { status: "redacted", wav: params.wav, spans: [], aligned: false };
  const wav = readPcmWav(new Uint8Array(params.wav));
  let offsetMs = params.fallbackOffsetMs;
  let aligned = false;
  if (wav && params.envelope) {
    const lag = alignEnvelopes(wavChannelEnvelope(wav, 0), params.envelope.bytes, MAX_ALIGNMENT_LAG_MS / 20);
    if (lag !== null) {
      offsetMs = lag * 20 - params.envelope.startMs;
      aligned = true;
    }
  }
  const spans: RedactedSpan[] = redacted.map(({ line, next }) => {
    const end = line.endOffsetMs ?? (next ? Math.max(next.offsetMs, line.offsetMs) : line.offsetMs + UNKNOWN_END_MS);
    return {
      startMs: Math.max(0, Math.round(line.offsetMs + offsetMs - PAD_BEFORE_MS)),
      endMs: Math.max(0, Math.round(end + offsetMs + PAD_AFTER_MS)),
      speaker: line.speaker,
      categories: line.redactions,
    };
  });
  if (!wav) return { status: "unreadable", spans };
  const copy = Buffer.from(wav.buffer);
  const editable = readPcmWav(copy)!;
  silenceWavSpans(editable, spans);
  return { status: "redacted", wav: copy, spans, aligned };
}

/**
 * A recording with spans already worked out (`redactRecording`'s, stored with the call) silenced on all channels;
 * silencing a span twice changes nothing. Null: audio we cannot edit (it must not be kept).
 */
export function silenceRecordingSpans(wav: Uint8Array, spans: ReadonlyArray<RedactedSpan>): Uint8Array | null {
  if (spans.length === 0) return wav;
  const copy = Buffer.from(wav);
  const editable = readPcmWav(copy);
  if (!editable) return null;
  silenceWavSpans(editable, spans);
  return new Uint8Array(copy.buffer, copy.byteOffset, copy.byteLength);
}
