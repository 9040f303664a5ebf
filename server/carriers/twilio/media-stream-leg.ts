import type { WebSocket } from "ws";
import type { MediaLeg, MediaLegEvents, MediaLegStart } from "@/server/voice/conversation/media-leg";

/** Twilio Media Streams messages we read (twilio.com/docs/voice/media-streams/websocket-messages). */
type TwilioMessage = {
  event?: string;
  start?: { streamSid?: string; callSid?: string; customParameters?: Record<string, string>; mediaFormat?: { encoding?: string; sampleRate?: number; channels?: number } };
  media?: { payload?: string; timestamp?: string };
  mark?: { name?: string };
  dtmf?: { digit?: string };
};

type Listeners = { [E in keyof MediaLegEvents]: Set<MediaLegEvents[E]> };

const DTMF_DIGIT = /^[0-9*#A-D]$/;

/**
 * A Twilio Media Streams WebSocket as a media leg (server/voice/conversation/media-leg.ts), bidirectional
 * (`<Connect><Stream>`). In: `connected` (ignored), `start` (stream and call SIDs, our custom parameters, the media
 * format), `media` (base64 µ-law with its timestamp), `mark` (a mark we sent was played), `dtmf`, `stop`; out: `media`,
 * `mark`, `clear`. The leg stops when the socket closes (Twilio closes it after `stop`). The browser test call
 * (server/voice/test-call) speaks the same protocol.
 */
export class TwilioMediaStreamLeg implements MediaLeg {
  started: MediaLegStart | null = null;
  private stopped = false;
  private readonly listeners: Listeners = { start: new Set(), audio: new Set(), mark: new Set(), dtmf: new Set(), stop: new Set() };

  constructor(private readonly ws: WebSocket) {
    ws.on("message", (data: Buffer) => this.received(data));
    ws.on("close", () => {
      if (this.stopped) return;
      this.stopped = true;
      for (const listener of this.listeners.stop) listener();
    });
  }

  get open() {
    return !this.stopped && this.ws.readyState === this.ws.OPEN;
  }

  on<E extends keyof MediaLegEvents>(event: E, listener: MediaLegEvents[E]): () => void {
    const set = this.listeners[event] as Set<MediaLegEvents[E]>;
    set.add(listener);
    return () => void set.delete(listener);
  }

  private received(data: Buffer) {
    let message: TwilioMessage;
    try {
      message = JSON.parse(data.toString()) as TwilioMessage;
    } catch {
      return;
    }
    switch (message.event) {
      case "media": {
        if (!this.started || typeof message.media?.payload !== "string") return;
        const timestamp = Number(message.media.timestamp);
        const frame = { audio: Buffer.from(message.media.payload, "base64"), timestampMs: message.media.timestamp !== undefined && Number.isFinite(timestamp) ? timestamp : null };
        for (const listener of this.listeners.audio) listener(frame);
        return;
      }
      case "start": {
        if (this.started) return;
        const start = message.start;
        const format = start?.mediaFormat;
        this.started = {
          streamId: start?.streamSid ?? "",
          carrierCallId: start?.callSid ?? "",
          parameters: { ...start?.customParameters },
          continuousClock: format?.encoding === "audio/x-mulaw" && format.sampleRate === 8000 && format.channels === 1,
        };
        for (const listener of this.listeners.start) listener(this.started);
        return;
      }
      case "mark":
        if (typeof message.mark?.name === "string") for (const listener of this.listeners.mark) listener(message.mark.name);
        return;
      case "dtmf":
        if (DTMF_DIGIT.test(message.dtmf?.digit ?? "")) for (const listener of this.listeners.dtmf) listener(message.dtmf!.digit!);
        return;
      default:
        return;
    }
  }

  private send(message: object) {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(message));
  }

  sendAudio(audio: Uint8Array) {
    const payload = Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength).toString("base64");
    this.send({ event: "media", streamSid: this.started?.streamId ?? null, media: { payload } });
  }

  mark(name: string) {
    this.send({ event: "mark", streamSid: this.started?.streamId ?? null, mark: { name } });
  }

  clear() {
    this.send({ event: "clear", streamSid: this.started?.streamId ?? null });
  }

  close(options?: { abrupt?: boolean; reason?: string }) {
    if (options?.abrupt) this.ws.terminate();
    else if (options?.reason) this.ws.close(1008, options.reason);
    else this.ws.close();
  }
}
