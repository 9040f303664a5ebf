import { decodeUlawSample, ULAW_SILENCE } from "./g711";

/**
 * Audio helpers for disclosures and redaction: µ-law encoding of speech we synthesize (the disclosures, spoken by a
 * text-to-speech model at 24 kHz), loudness envelopes (one value per 20 ms frame) to align a recording with the
 * media stream, and silencing spans of a WAV (16-bit or 8-bit PCM, or µ-law).
 */
const ULAW_CLIP = 32635;
const ULAW_BIAS = 0x84;

export function encodeUlawSample(sample: number): number {
  let value = Math.max(-32768, Math.min(32767, Math.round(sample)));
  const sign = value < 0 ? 0x80 : 0;
  if (value < 0) value = -value;
  value = Math.min(value, ULAW_CLIP) + ULAW_BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (value & mask) === 0 && exponent > 0; mask >>= 1) exponent -= 1;
  const mantissa = (value >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/**
 * 16-bit little-endian PCM at 24 kHz (what OpenAI's speech endpoint answers for `response_format: "pcm"`) → 8 kHz
 * µ-law: each output sample is the mean of three input samples (a boxcar low-pass; speech has little energy above
 * 4 kHz), then G.711-encoded.
 */
export function pcm24kToUlaw8k(pcm: Uint8Array): Buffer {
  const view = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength - (pcm.byteLength % 2));
  const samples = Math.floor(view.length / 2 / 3);
  const out = Buffer.alloc(samples);
  for (let i = 0; i < samples; i += 1) {
    const at = i * 6;
    out[i] = encodeUlawSample((view.readInt16LE(at) + view.readInt16LE(at + 2) + view.readInt16LE(at + 4)) / 3);
  }
  return out;
}

/** The inverse for simulators: 8 kHz µ-law → 24 kHz 16-bit PCM, each sample repeated three times (so the mean of three gives it back). */
export function ulaw8kToPcm24k(ulaw: Uint8Array): Buffer {
  const out = Buffer.alloc(ulaw.length * 6);
  for (let i = 0; i < ulaw.length; i += 1) {
    const sample = decodeUlawSample(ulaw[i]!);
    out.writeInt16LE(sample, i * 6);
    out.writeInt16LE(sample, i * 6 + 2);
    out.writeInt16LE(sample, i * 6 + 4);
  }
  return out;
}

/** Loudness of one 20 ms frame as one byte (log scale): comparable between the stream's µ-law and a WAV's PCM. */
export function loudnessByte(rms: number): number {
  return Math.min(255, Math.round(24 * Math.log2(1 + rms / 8)));
}

export function ulawFrameLoudness(frame: Uint8Array): number {
  let sum = 0;
  for (const byte of frame) {
    const sample = decodeUlawSample(byte);
    sum += sample * sample;
  }
  return loudnessByte(frame.length ? Math.sqrt(sum / frame.length) : 0);
}

/**
 * The sample layouts a recording can be edited in: 16-bit linear PCM (Twilio's recordings, the real engine's own),
 * 8-bit unsigned PCM (the simulator's recordings, server/voice/simulator/wav.ts) and 8-bit G.711 µ-law (format tag 7).
 * Anything else (MP3, A-law, float) is not readable here: a recording with redacted turns in such a format is not kept.
 */
export type WavEncoding = "pcm16" | "pcm8" | "ulaw";

export type PcmWav = { channels: number; sampleRate: number; dataOffset: number; frames: number; buffer: Buffer; encoding: WavEncoding };

const BYTES_PER_SAMPLE: Record<WavEncoding, number> = { pcm16: 2, pcm8: 1, ulaw: 1 };
/** The byte that is silence, per encoding (16-bit silence is two zero bytes). */
const SILENT_BYTE: Record<WavEncoding, number> = { pcm16: 0, pcm8: 0x80, ulaw: ULAW_SILENCE };
const WAVE_FORMAT_ULAW = 7;

function encodingOf(formatTag: number, bits: number): WavEncoding | null {
  if (formatTag === WAVE_FORMAT_ULAW) return bits === 8 ? "ulaw" : null;
  if (bits === 16) return "pcm16";
  if (bits === 8 && formatTag === 1) return "pcm8";
  return null;
}

/** One sample of a WAV as 16-bit linear. */
function sampleAt(wav: PcmWav, frame: number, channel: number): number {
  const index = frame * wav.channels + channel;
  switch (wav.encoding) {
    case "pcm16":
      return wav.buffer.readInt16LE(wav.dataOffset + index * 2);
    case "pcm8":
      return (wav.buffer[wav.dataOffset + index]! - 0x80) << 8;
    case "ulaw":
      return decodeUlawSample(wav.buffer[wav.dataOffset + index]!);
  }
}

/** The layout of a WAV we can read and edit (`WavEncoding`; the `data` chunk found by walking the chunks); null otherwise. */
export function readPcmWav(bytes: Uint8Array): PcmWav | null {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.length < 44 || buffer.toString("ascii", 0, 4) !== "RIFF" || buffer.toString("ascii", 8, 12) !== "WAVE") return null;
  let at = 12;
  let channels = 0;
  let sampleRate = 0;
  let encoding: WavEncoding | null = null;
  while (at + 8 <= buffer.length) {
    const id = buffer.toString("ascii", at, at + 4);
    const size = buffer.readUInt32LE(at + 4);
    if (id === "fmt ") {
      channels = buffer.readUInt16LE(at + 10);
      sampleRate = buffer.readUInt32LE(at + 12);
      encoding = encodingOf(buffer.readUInt16LE(at + 8), buffer.readUInt16LE(at + 22));
    } else if (id === "data") {
      if (!encoding || channels < 1 || sampleRate < 1) return null;
      const dataBytes = Math.min(size, buffer.length - at - 8);
      return { channels, sampleRate, dataOffset: at + 8, frames: Math.floor(dataBytes / (BYTES_PER_SAMPLE[encoding] * channels)), buffer, encoding };
    }
    at += 8 + size + (size % 2);
  }
  return null;
}

/** One loudness byte per 20 ms of one channel of a WAV. */
export function wavChannelEnvelope(wav: PcmWav, channel: number): Uint8Array {
  const perFrame = Math.round(wav.sampleRate / 50);
  const count = Math.floor(wav.frames / perFrame);
  const envelope = new Uint8Array(count);
  for (let index = 0; index < count; index += 1) {
    let sum = 0;
    for (let i = 0; i < perFrame; i += 1) {
      const sample = sampleAt(wav, index * perFrame + i, channel);
      sum += sample * sample;
    }
    envelope[index] = loudnessByte(Math.sqrt(sum / perFrame));
  }
  return envelope;
}

/** Silences every channel of the WAV (in place) over the given spans (milliseconds of audio), in its own encoding. */
export function silenceWavSpans(wav: PcmWav, spans: ReadonlyArray<{ startMs: number; endMs: number }>): void {
  const frameBytes = wav.channels * BYTES_PER_SAMPLE[wav.encoding];
  for (const span of spans) {
    const from = Math.max(0, Math.floor((span.startMs * wav.sampleRate) / 1000));
    const to = Math.min(wav.frames, Math.ceil((span.endMs * wav.sampleRate) / 1000));
    if (to > from) wav.buffer.fill(SILENT_BYTE[wav.encoding], wav.dataOffset + from * frameBytes, wav.dataOffset + to * frameBytes);
  }
}

/**
 * Where `needle` (a loudness envelope) sits in `haystack`: the lag (in frames, 0…maxLag) of the best normalized
 * correlation over their overlap; null when nothing correlates (the needle is silence, or too short).
 */
export function alignEnvelopes(haystack: Uint8Array, needle: Uint8Array, maxLag: number): number | null {
  const needleLength = Math.min(needle.length, 1500);
  let best: { lag: number; score: number } | null = null;
  for (let lag = 0; lag <= maxLag; lag += 1) {
    const count = Math.min(needleLength, haystack.length - lag);
    if (count < 50) break;
    let sumA = 0;
    let sumB = 0;
    for (let i = 0; i < count; i += 1) {
      sumA += haystack[lag + i]!;
      sumB += needle[i]!;
    }
    const meanA = sumA / count;
    const meanB = sumB / count;
    let cross = 0;
    let varianceA = 0;
    let varianceB = 0;
    for (let i = 0; i < count; i += 1) {
      const a = haystack[lag + i]! - meanA;
      const b = needle[i]! - meanB;
      cross += a * b;
      varianceA += a * a;
      varianceB += b * b;
    }
    if (varianceA === 0 || varianceB / count < 4) continue;
    const score = cross / Math.sqrt(varianceA * varianceB);
    if (!best || score > best.score) best = { lag, score };
  }
  return best && best.score > 0.5 ? best.lag : null;
}

export { ULAW_SILENCE };
