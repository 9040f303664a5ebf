import { writeWavHeader } from "@/server/voice/g711";

/**
 * A short, real RIFF/WAVE file (PCM, 16-bit, mono, 8 kHz — telephony quality) standing in for a call recording:
 * alternating "turns" of two voices (different pitches, syllable-like envelopes) so it sounds like a conversation.
 */
export const WAV_SAMPLE_RATE = 8000;

export type WavOptions = { seconds: number; seed: number; turns?: number };

export function createConversationWav({ seconds, seed, turns = 4 }: WavOptions): Uint8Array {
  const sampleCount = Math.max(1, Math.round(seconds * WAV_SAMPLE_RATE));
  const dataBytes = sampleCount * 2;
  const buffer = Buffer.alloc(44 + dataBytes);
  writeWavHeader(buffer, { dataBytes, channels: 1, sampleRate: WAV_SAMPLE_RATE });

  const random = seededRandom(seed);
  const turnLength = Math.ceil(sampleCount / Math.max(1, turns));
  const pitches = [180 + random() * 40, 110 + random() * 30];
  let phase = 0;
  for (let i = 0; i < sampleCount; i += 1) {
    const turn = Math.floor(i / turnLength);
    const inTurn = i % turnLength;
    const pitch = pitches[turn % 2]!;
    // Syllables: ~5 per second, silence at the edges of each turn.
    const syllable = Math.max(0, Math.sin((Math.PI * inTurn * 5) / WAV_SAMPLE_RATE));
    const edge = Math.min(1, inTurn / 400, (turnLength - inTurn) / 400);
    const vibrato = 1 + 0.03 * Math.sin((2 * Math.PI * 4 * i) / WAV_SAMPLE_RATE);
    phase += (2 * Math.PI * pitch * vibrato) / WAV_SAMPLE_RATE;
    const voiced = Math.sin(phase) + 0.5 * Math.sin(2 * phase) + 0.25 * Math.sin(3 * phase);
    const sample = 0.35 * voiced * syllable * Math.max(0, edge) + 0.01 * (random() - 0.5);
    buffer.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(sample * 16000))), 44 + i * 2);
  }
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/** Reads the format header back (used by tests and by anything that wants to check a stored file). */
export function parseWavHeader(bytes: Uint8Array): { sampleRate: number; channels: number; bitsPerSample: number; seconds: number } | null {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.length < 44 || buffer.toString("ascii", 0, 4) !== "RIFF" || buffer.toString("ascii", 8, 12) !== "WAVE") return null;
  if (buffer.toString("ascii", 12, 16) !== "fmt " || buffer.toString("ascii", 36, 40) !== "data") return null;
  const channels = buffer.readUInt16LE(22);
  const sampleRate = buffer.readUInt32LE(24);
  const bitsPerSample = buffer.readUInt16LE(34);
  const dataBytes = buffer.readUInt32LE(40);
  return { sampleRate, channels, bitsPerSample, seconds: dataBytes / (sampleRate * channels * (bitsPerSample / 8)) };
}

/** mulberry32: a small deterministic PRNG (same seed → same sequence). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-bit seed from a string (FNV-1a). */
export function seedOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
