import { writeWavHeader } from "@/server/voice/g711";

/**
 * A real RIFF/WAVE file standing in for a call recording, exactly as long as the call: alternating "turns" of two
 * voices (different pitches, syllable-like envelopes) with pauses between them, so it sounds like a conversation and
 * the player's length agrees with the call's duration. 8-bit unsigned PCM, mono, 8 kHz (telephony quality, 8 kB per
 * second: a 7-minute call is 3.4 MB); silence costs no computation.
 */
export const WAV_SAMPLE_RATE = 8000;
const SILENCE = 0x80;

export type WavOptions = { seconds: number; seed: number; turns?: number };

export function createConversationWav({ seconds, seed, turns }: WavOptions): Uint8Array {
  const sampleCount = Math.max(1, Math.round(seconds * WAV_SAMPLE_RATE));
  const buffer = Buffer.alloc(44 + sampleCount, SILENCE);
  writeWavHeader(buffer, { dataBytes: sampleCount, channels: 1, sampleRate: WAV_SAMPLE_RATE, bitsPerSample: 8 });

  const random = seededRandom(seed);
  // About one turn every 8 seconds; each speaks for up to 5 seconds and the rest of the turn is a pause.
  const turnCount = Math.max(1, turns ?? Math.round(seconds / 8));
  const turnLength = Math.ceil(sampleCount / turnCount);
  const spoken = Math.min(turnLength, 5 * WAV_SAMPLE_RATE, Math.max(1, Math.round(turnLength * 0.8)));
  // Whole hertz: each voice's turn is then one of a few dozen per length, synthesized once per process (voiceTurn).
  const pitches = [Math.round(180 + random() * 40), Math.round(110 + random() * 30)];
  for (let turn = 0; turn < turnCount; turn += 1) {
    const first = turn * turnLength;
    const length = Math.min(sampleCount, first + spoken) - first;
    if (length <= 0) break;
    voiceTurn(pitches[turn % 2]!, length).copy(buffer, 44 + first);
  }
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/**
 * One voice's turn of speech: a pure function of (pitch, length), so it is synthesized once and copied into every
 * turn and every recording that uses it. The simulator synthesizes a recording per call in the app's own process
 * (its recording host, on each GET); synthesizing every turn of every call took ~100 ms of the event loop per call at
 * campaign rates, and two turns per call still ~7 % of the app's CPU (docs/call-engine.md, "Performance: a campaign
 * burst"); with the turns shared a recording costs a fill and a few copies.
 */
const voiceTurns = new Map<string, Buffer>();
const MAX_CACHED_TURNS = 512;

export function voiceTurn(pitch: number, length: number): Buffer {
  const key = `${pitch}:${length}`;
  const cached = voiceTurns.get(key);
  if (cached) return cached;
  const random = seededRandom(pitch * 1_000_003 + length);
  const turn = Buffer.alloc(length, SILENCE);
  let phase = 0;
  for (let inTurn = 0; inTurn < length; inTurn += 1) {
    // Syllables: ~5 per second, faded in and out at the edges of each turn.
    const syllable = Math.max(0, Math.sin((Math.PI * inTurn * 5) / WAV_SAMPLE_RATE));
    const edge = Math.min(1, inTurn / 400, (length - inTurn) / 400);
    const vibrato = 1 + 0.03 * Math.sin((2 * Math.PI * 4 * inTurn) / WAV_SAMPLE_RATE);
    phase += (2 * Math.PI * pitch * vibrato) / WAV_SAMPLE_RATE;
    const voiced = Math.sin(phase) + 0.5 * Math.sin(2 * phase) + 0.25 * Math.sin(3 * phase);
    const sample = 0.35 * voiced * syllable * Math.max(0, edge) + 0.01 * (random() - 0.5);
    turn[inTurn] = Math.max(0, Math.min(255, SILENCE + Math.round(sample * 64)));
  }
  if (voiceTurns.size >= MAX_CACHED_TURNS) voiceTurns.clear();
  voiceTurns.set(key, turn);
  return turn;
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
