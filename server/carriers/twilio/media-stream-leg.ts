import { JsonMediaLeg } from "../json-media-leg";

/** Twilio Media Streams messages we read (twilio.com/docs/voice/media-streams/websocket-messages). */
type TwilioMessage = {
  event?: string;
  start?: { streamSid?: string; callSid?: string; customParameters?: Record<string, string>; mediaFormat?: { encoding?: string; sampleRate?: number; channels?: number } };
  media?: { payload?: string; timestamp?: string };
  mark?: { name?: string };
  dtmf?: { digit?: string };
};


/**
 * A Twilio Media Streams WebSocket as a media leg (server/voice/conversation/media-leg.ts), bidirectional
 * (`<Connect><Stream>`). In: `connected` (ignored), `start` (stream and call SIDs, our custom parameters, the media
 * format), `media` (base64 µ-law with its timestamp), `mark` (a mark we sent was played), `dtmf`, `stop`; out: `media`,
 * `mark`, `clear`. The leg stops when the socket closes (Twilio closes it after `stop`). The browser test call
 * (server/voice/test-call) speaks the same protocol.
 */
export class TwilioMediaStreamLeg extends JsonMediaLeg<TwilioMessage> {
  protected read(message: TwilioMessage) {
    switch (message.event) {
      case "media": {
        if (!this.started || typeof message.media?.payload !== "string") return;
        this.heard(message.media.payload, message.media.timestamp);
        return;
      }
      case "start": {
        if (this.started) return;
        const start = message.start;
        const format = start?.mediaFormat;
        this.begin({
          streamId: start?.streamSid ?? "",
          carrierCallId: start?.callSid ?? "",
          parameters: { ...start?.customParameters },
          continuousClock: format?.encoding === "audio/x-mulaw" && format.sampleRate === 8000 && format.channels === 1,
        });
        return;
      }
      case "mark":
        this.markReached(message.mark?.name);
        return;
      case "dtmf":
        this.pressed(message.dtmf?.digit);
        return;
      default:
        return;
    }
  }

  sendAudio(audio: Uint8Array) {
    this.send({ event: "media", streamSid: this.started?.streamId ?? null, media: { payload: this.payloadOf(audio) } });
  }

  mark(name: string) {
    this.send({ event: "mark", streamSid: this.started?.streamId ?? null, mark: { name } });
  }

  clear() {
    this.send({ event: "clear", streamSid: this.started?.streamId ?? null });
  }
}
