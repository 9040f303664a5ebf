import type { WebSocket } from "ws";
import type { CallerFrame, MediaLeg, MediaLegEvents, MediaLegStart } from "@/server/voice/conversation/media-leg";

type Listeners = { [E in keyof MediaLegEvents]: Set<MediaLegEvents[E]> };

const DTMF_DIGIT = /^[0-9*#A-D]$/;

/**
 * What every carrier's media leg over a WebSocket of JSON frames shares (Twilio's twilio/media-stream-leg.ts, Telnyx's
 * telnyx/media-stream-leg.ts): the listeners, the leg stopping once (when the socket closes, or when the carrier says
 * so), sends only while open, and how we close. A carrier's leg reads its own frames (`read`) and writes its own
 * (`sendAudio`, `mark`, `clear`); a frame that is not JSON is ignored.
 */
export abstract class JsonMediaLeg<Message> implements MediaLeg {
  started: MediaLegStart | null = null;
  private stopped = false;
  private readonly listeners: Listeners = { start: new Set(), audio: new Set(), mark: new Set(), dtmf: new Set(), stop: new Set() };

  constructor(protected readonly ws: WebSocket) {
    ws.on("message", (data: Buffer) => {
      if (this.stopped) return;
      let message: Message;
      try {
        message = JSON.parse(data.toString()) as Message;
      } catch {
        return;
      }
      this.read(message);
    });
    ws.on("close", () => this.stop());
  }

  /** One frame from the carrier, parsed. */
  protected abstract read(message: Message): void;
  abstract sendAudio(audio: Uint8Array): void;
  abstract mark(name: string): void;
  abstract clear(): void;

  get open() {
    return !this.stopped && this.ws.readyState === this.ws.OPEN;
  }

  on<E extends keyof MediaLegEvents>(event: E, listener: MediaLegEvents[E]): () => void {
    const set = this.listeners[event] as Set<MediaLegEvents[E]>;
    set.add(listener);
    return () => void set.delete(listener);
  }

  /** The stream has started (once: a second `start` is ignored). */
  protected begin(start: MediaLegStart) {
    if (this.started) return;
    this.started = start;
    for (const listener of this.listeners.start) listener(start);
  }

  /** A frame of the callee's audio: its base64 µ-law payload and its timestamp in ms as the carrier wrote it (text). */
  protected heard(payload: string, timestamp: string | undefined) {
    const ms = Number(timestamp);
    const frame: CallerFrame = { audio: Buffer.from(payload, "base64"), timestampMs: timestamp !== undefined && Number.isFinite(ms) ? ms : null };
    for (const listener of this.listeners.audio) listener(frame);
  }

  protected markReached(name: unknown) {
    if (typeof name === "string") for (const listener of this.listeners.mark) listener(name);
  }

  /** A key the callee pressed; anything but 0-9, *, #, A-D is ignored. */
  protected pressed(digit: unknown) {
    if (typeof digit === "string" && DTMF_DIGIT.test(digit)) for (const listener of this.listeners.dtmf) listener(digit);
  }

  protected stop() {
    if (this.stopped) return;
    this.stopped = true;
    for (const listener of this.listeners.stop) listener();
  }

  protected send(message: object) {
    if (this.open) this.ws.send(JSON.stringify(message));
  }

  /** 8 kHz µ-law bytes as the base64 payload both carriers' `media` frames carry. */
  protected payloadOf(audio: Uint8Array): string {
    return Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength).toString("base64");
  }

  close(options?: { abrupt?: boolean; reason?: string }) {
    if (options?.abrupt) this.ws.terminate();
    else if (options?.reason) this.ws.close(1008, options.reason);
    else this.ws.close();
  }
}
