import { ULAW_SILENCE, ulawChannelsToWav } from "@/server/voice/g711";

/** 8 kHz µ-law: bytes per millisecond. */
const BYTES_PER_MS = 8;
/** A test call records at most this long (the agent's max call length bounds it anyway). */
const MAX_BYTES = 60 * 60 * 8000;

/** One side of the call on the call's timeline: audio is placed at its arrival time, after what is already there. */
class Track {
  private readonly chunks: Buffer[] = [];
  private length = 0;

  write(audio: Buffer, atMs: number) {
    const at = Math.floor(atMs * BYTES_PER_MS);
    if (at > this.length) this.pad(at - this.length);
    if (this.length + audio.length > MAX_BYTES) return;
    this.chunks.push(audio);
    this.length += audio.length;
  }

  private pad(bytes: number) {
    const gap = Math.min(bytes, MAX_BYTES - this.length);
    if (gap <= 0) return;
    this.chunks.push(Buffer.alloc(gap, ULAW_SILENCE));
    this.length += gap;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks, this.length);
  }
}

/**
 * The test call's recording, as Twilio records a call with `RecordingChannels=dual`: the caller (the browser's
 * microphone) left, the agent right, both as they crossed our socket. The agent's audio arrives faster than real time
 * and is laid out back to back, as the browser plays it.
 */
export class TestCallRecorder {
  private readonly startedAt = Date.now();
  private readonly caller = new Track();
  private readonly agent = new Track();

  callerAudio(payloadBase64: string) {
    this.caller.write(Buffer.from(payloadBase64, "base64"), Date.now() - this.startedAt);
  }

  agentAudio(payloadBase64: string) {
    this.agent.write(Buffer.from(payloadBase64, "base64"), Date.now() - this.startedAt);
  }

  /** Agent audio dropped by a `clear` (the caller interrupted) was not heard: nothing to undo here, the WAV keeps what was sent. */
  seconds(): number {
    return Math.max(1, Math.round((Date.now() - this.startedAt) / 1000));
  }

  wav(): Buffer {
    return ulawChannelsToWav([this.caller.bytes(), this.agent.bytes()]);
  }
}
