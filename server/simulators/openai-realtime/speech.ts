import { decodeUlawSample } from "@/server/voice/g711";
import { encodeUlawSample, ulaw8kToPcm24k } from "@/server/voice/pcm";
import { clipForText, loadClip } from "../voice-clips/clips";

export type SpeechRequest = { model: string; voice: string; input: string; response_format?: string };

/**
 * `POST /v1/audio/speech` as the simulator answers it: raw 16-bit PCM at 24 kHz (`response_format: "pcm"`). A text
 * that is one of the voice clips is that clip; any other text becomes a deterministic stand-in for speech (a tone per
 * character, pauses at spaces and punctuation) about as long as the text spoken, so tests can find it in a recording
 * (`speechAudio(text)` gives the µ-law bytes the app will play).
 */
export function speechAudio(text: string): Buffer {
  const clip = clipForText(text);
  if (clip) return loadClip(clip);
  const out: number[] = [];
  let phase = 0;
  for (const char of text) {
    if (/[\s]/.test(char)) {
      for (let i = 0; i < 8 * 40; i += 1) out.push(0xff);
      continue;
    }
    if (/[.,;:!?]/.test(char)) {
      for (let i = 0; i < 8 * 150; i += 1) out.push(0xff);
      continue;
    }
    const frequency = 220 + (char.toLowerCase().charCodeAt(0) % 23) * 35;
    const samples = 8 * 65;
    for (let i = 0; i < samples; i += 1) {
      const envelope = Math.min(1, i / 80, (samples - i) / 80);
      phase += (2 * Math.PI * frequency) / 8000;
      out.push(encodeUlawSample(9000 * envelope * Math.sin(phase)));
    }
  }
  // Canonical bytes (µ-law has two zeros): what the app's 24 kHz → µ-law conversion gives back, byte for byte.
  return Buffer.from(out.map((byte) => encodeUlawSample(decodeUlawSample(byte))));
}

export function speechPcm24k(text: string): Buffer {
  return ulaw8kToPcm24k(speechAudio(text));
}
