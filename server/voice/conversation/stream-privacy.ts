import { ulawFrameLoudness } from "@/server/voice/pcm";
import type { MediaLeg } from "./media-leg";

/**
 * What the compliance side of a conversation needs from the media leg: its clock (the carrier's media timestamps, the
 * time both the callee's audio and our playback run on), when each callee turn started and stopped on that clock
 * (the Realtime session's VAD times, counted from the first frame it was sent), the callee's loudness envelope (the
 * first minute, to align the recording on later), and playing our own audio (the disclosures) into the call.
 */
export type StreamPrivacy = {
  /** Stream milliseconds of the latest callee frame (the carrier's timestamp, + 20 ms). */
  now(): number;
  /** Where a turn started and ended on the stream clock (null end: not known). */
  turnTiming(itemId: string, role: "user" | "assistant"): { startMs: number; endMs: number | null };
  /** Plays µ-law audio into the call and resolves when the callee has heard it all (or the stream ended). */
  play(audio: Buffer, signal: AbortSignal): Promise<{ startMs: number; endMs: number }>;
  /** Stops what we played and the carrier still holds (the leg's `clear`). */
  clear(): void;
  envelope(): { bytes: Uint8Array; startMs: number } | null;
};

const FRAME_MS = 20;
const ENVELOPE_FRAMES = 3000;
/** Media sent per message when we play audio ourselves (one second). */
const CHUNK_BYTES = 8000;

type TransportLike = { on(event: "*", listener: (event: Record<string, unknown> & { type?: string }) => void): void };

/** `leg`: the conversation's (held: its frames arrive once the model is connected; its sends are observed). */
export function createStreamPrivacy(params: { leg: MediaLeg; transport: TransportLike }): StreamPrivacy {
  let firstTimestamp: number | null = null;
  let latest = 0;
  const envelope: number[] = [];
  const userStart = new Map<string, number>();
  const userEnd = new Map<string, number>();
  const assistantStart = new Map<string, number>();
  const waiters = new Set<() => void>();

  params.leg.on("audio", (frame) => {
    const timestamp = frame.timestampMs;
    if (timestamp === null) return;
    firstTimestamp ??= timestamp;
    latest = Math.max(latest, timestamp + FRAME_MS);
    if (envelope.length < ENVELOPE_FRAMES) envelope.push(ulawFrameLoudness(frame.audio));
    for (const wake of [...waiters]) wake();
  });
  params.transport.on("*", (event) => {
    // The session's VAD counts milliseconds of the audio it was sent, which starts with the stream's first frame.
    const base = firstTimestamp ?? 0;
    if (event.type === "input_audio_buffer.speech_started" && typeof event.item_id === "string") userStart.set(event.item_id, base + Number(event.audio_start_ms ?? 0));
    if (event.type === "input_audio_buffer.speech_stopped" && typeof event.item_id === "string") userEnd.set(event.item_id, base + Number(event.audio_end_ms ?? 0));
    const item = event.item as { id?: string } | undefined;
    if (event.type === "response.output_item.added" && item?.id) assistantStart.set(item.id, latest);
  });

  const waitForMedia = (untilMs: number, signal: AbortSignal, wallLimitMs: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        waiters.delete(check);
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const check = () => {
        if (latest >= untilMs) done();
      };
      const timer = setTimeout(done, wallLimitMs);
      signal.addEventListener("abort", done);
      waiters.add(check);
      check();
    });

  return {
    now: () => latest,
    turnTiming(itemId, role) {
      if (role === "user") return { startMs: userStart.get(itemId) ?? latest, endMs: userEnd.get(itemId) ?? null };
      return { startMs: assistantStart.get(itemId) ?? latest, endMs: null };
    },
    async play(audio, signal) {
      // Nothing of ours is queued at the carrier before this (the model is silent until the disclosures are over): the
      // audio starts playing now and lasts its own length on the media clock.
      const startMs = latest;
      for (let offset = 0; offset < audio.length && params.leg.open; offset += CHUNK_BYTES) params.leg.sendAudio(audio.subarray(offset, offset + CHUNK_BYTES));
      const durationMs = audio.length / 8;
      await waitForMedia(startMs + durationMs + 100, signal, durationMs + 3000);
      return { startMs, endMs: startMs + durationMs };
    },
    clear() {
      if (params.leg.open) params.leg.clear();
    },
    envelope: () => (firstTimestamp === null || envelope.length === 0 ? null : { bytes: Uint8Array.from(envelope), startMs: firstTimestamp }),
  };
}
