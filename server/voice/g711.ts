/**
 * G.711 µ-law (the telephony codec Twilio Media Streams and the Realtime API's `audio/pcmu` carry): decoding for
 * the simulators' voice activity detection and recordings, and a two-channel WAV writer. Written here because it is
 * ten lines of ITU-T G.711 and no maintained package does only this.
 */
const ULAW_BIAS = 0x84;

const DECODE_TABLE = (() => {
  const table = new Int16Array(256);
  for (let i = 0; i < 256; i += 1) {
    const value = ~i & 0xff;
    const sign = value & 0x80;
    const exponent = (value >> 4) & 0x07;
    const mantissa = value & 0x0f;
    const magnitude = (((mantissa << 3) + ULAW_BIAS) << exponent) - ULAW_BIAS;
    table[i] = sign ? -magnitude : magnitude;
  }
  return table;
})();

/** The µ-law byte of digital silence. */
export const ULAW_SILENCE = 0xff;

export function decodeUlawSample(byte: number): number {
  return DECODE_TABLE[byte & 0xff]!;
}

/** A 16-bit linear sample as µ-law (G.711 section 2: bias, segment, 4-bit mantissa, inverted). */
export function encodeUlawSample(sample: number): number {
  const clipped = Math.max(-32635, Math.min(32635, Math.round(sample)));
  const sign = clipped < 0 ? 0x80 : 0;
  let magnitude = (clipped < 0 ? -clipped : clipped) + ULAW_BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (magnitude & mask) === 0 && exponent > 0; mask >>= 1) exponent -= 1;
  const mantissa = (magnitude >> (exponent + 3)) & 0x0f;
  magnitude = sign | (exponent << 4) | mantissa;
  return ~magnitude & 0xff;
}

/** Two µ-law streams as one (both sides of a call heard at once): samples added on the linear scale. */
export function mixUlaw(a: Uint8Array, b: Uint8Array): Buffer {
  const length = Math.max(a.length, b.length);
  const mixed = Buffer.alloc(length, ULAW_SILENCE);
  for (let i = 0; i < length; i += 1) {
    const sum = (i < a.length ? DECODE_TABLE[a[i]!]! : 0) + (i < b.length ? DECODE_TABLE[b[i]!]! : 0);
    mixed[i] = encodeUlawSample(sum);
  }
  return mixed;
}

/** Root mean square of µ-law audio, on the 16-bit linear scale (silence 0, speech in the thousands). */
export function ulawRms(bytes: Uint8Array, start = 0, end = bytes.length): number {
  if (end <= start) return 0;
  let sum = 0;
  for (let i = start; i < end; i += 1) {
    const sample = DECODE_TABLE[bytes[i]!]!;
    sum += sample * sample;
  }
  return Math.sqrt(sum / (end - start));
}

/** The 44-byte RIFF/WAVE header of 16-bit PCM audio, written at the start of `buffer`. */
export function writeWavHeader(buffer: Buffer, params: { dataBytes: number; channels: number; sampleRate: number; bitsPerSample?: 8 | 16 }): void {
  const { dataBytes, channels, sampleRate } = params;
  const bytesPerSample = (params.bitsPerSample ?? 16) / 8;
  buffer.write("RIFF", 0, "ascii");
  buffer.writeUInt32LE(36 + dataBytes, 4);
  buffer.write("WAVE", 8, "ascii");
  buffer.write("fmt ", 12, "ascii");
  buffer.writeUInt32LE(16, 16); // fmt chunk size
  buffer.writeUInt16LE(1, 20); // PCM
  buffer.writeUInt16LE(channels, 22);
  buffer.writeUInt32LE(sampleRate, 24);
  buffer.writeUInt32LE(sampleRate * channels * bytesPerSample, 28); // byte rate
  buffer.writeUInt16LE(channels * bytesPerSample, 32); // block align
  buffer.writeUInt16LE(bytesPerSample * 8, 34); // bits per sample
  buffer.write("data", 36, "ascii");
  buffer.writeUInt32LE(dataBytes, 40);
}

/** A RIFF/WAVE file, 16-bit PCM at 8 kHz, interleaving the given µ-law channels (padded with silence to one length). */
export function ulawChannelsToWav(channels: Uint8Array[]): Buffer {
  const length = Math.max(0, ...channels.map((channel) => channel.length));
  const channelCount = channels.length;
  const dataBytes = length * channelCount * 2;
  const buffer = Buffer.alloc(44 + dataBytes);
  writeWavHeader(buffer, { dataBytes, channels: channelCount, sampleRate: 8000 });
  let offset = 44;
  for (let i = 0; i < length; i += 1) {
    for (const channel of channels) {
      buffer.writeInt16LE(DECODE_TABLE[i < channel.length ? channel[i]! : ULAW_SILENCE]!, offset);
      offset += 2;
    }
  }
  return buffer;
}

/** Root mean square of each channel of a 16-bit PCM WAV file (what a test checks to hear speech on both sides). */
export function wavChannelRms(wav: Uint8Array): number[] {
  const buffer = Buffer.from(wav.buffer, wav.byteOffset, wav.byteLength);
  const channels = buffer.readUInt16LE(22);
  const bits = buffer.readUInt16LE(34);
  if (bits !== 16) throw new Error(`expected 16-bit PCM, got ${bits}-bit`);
  const dataBytes = buffer.readUInt32LE(40);
  const frames = Math.floor(dataBytes / (2 * channels));
  const sums = new Array<number>(channels).fill(0);
  for (let frame = 0; frame < frames; frame += 1) {
    for (let channel = 0; channel < channels; channel += 1) {
      const sample = buffer.readInt16LE(44 + (frame * channels + channel) * 2);
      sums[channel]! += sample * sample;
    }
  }
  return sums.map((sum) => (frames ? Math.sqrt(sum / frames) : 0));
}
