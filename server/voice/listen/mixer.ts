import { mixUlaw } from "@/server/voice/g711";

/** At most this much of the agent's audio is held ahead of what Twilio has played (the model sends faster than real time). */
const MAX_AHEAD_BYTES = 8000 * 30;

/**
 * Both sides of a Twilio media stream as one signal, paced like the call: every 20 ms frame of the callee (Twilio
 * sends them in real time) is mixed with the next 20 ms of what we sent to play (buffered: the model's audio arrives
 * in bursts, Twilio plays it in real time). A `clear` (the callee interrupted) drops what was not played.
 */
export class CallAudioMixer {
  private ahead: Buffer[] = [];
  private aheadBytes = 0;

  constructor(private readonly emit: (frame: Buffer) => void) {}

  /** A `media` message from Twilio (the callee). */
  inbound(frame: Buffer): void {
    this.emit(mixUlaw(frame, this.take(frame.length)));
  }

  /** A `media` message we send (the agent's voice). */
  outbound(audio: Buffer): void {
    if (this.aheadBytes + audio.length > MAX_AHEAD_BYTES) return;
    this.ahead.push(audio);
    this.aheadBytes += audio.length;
  }

  clear(): void {
    this.ahead = [];
    this.aheadBytes = 0;
  }

  private take(length: number): Buffer {
    const parts: Buffer[] = [];
    let need = length;
    while (need > 0 && this.ahead.length > 0) {
      const head = this.ahead[0]!;
      if (head.length <= need) {
        parts.push(head);
        need -= head.length;
        this.ahead.shift();
      } else {
        parts.push(head.subarray(0, need));
        this.ahead[0] = head.subarray(need);
        need = 0;
      }
    }
    const taken = Buffer.concat(parts);
    this.aheadBytes -= taken.length;
    return taken;
  }
}
