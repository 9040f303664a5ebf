import { JsonMediaLeg } from "../json-media-leg";

/**
 * Telnyx media streaming frames we read (developers.telnyx.com/api-reference/websockets/stream-call-media-over-websocket;
 * the simulator's server/simulators/telnyx/media-stream.ts speaks the same).
 */
type TelnyxMessage = {
  event?: string;
  stream_id?: string;
  start?: { call_control_id?: string; client_state?: string | null; media_format?: { encoding?: string; sample_rate?: number | string; channels?: number | string } };
  media?: { track?: string; chunk?: string; timestamp?: string; payload?: string };
  mark?: { name?: string };
  dtmf?: { digit?: string };
};

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Our parameters for a Telnyx stream (the stream token, `resume`) as the `client_state` the dial (or `streaming_start`)
 * sends: base64 of a URL-encoded query string (`token=…&resume=…`). Telnyx carries `client_state` opaque, base64, and
 * hands it back in the stream's `start` frame, where `decodeStreamClientState` reads it. A query string keeps it short
 * and lets other keys ride along (every key becomes a parameter).
 */
export function encodeStreamClientState(parameters: Record<string, string>): string {
  return Buffer.from(new URLSearchParams(parameters).toString(), "utf8").toString("base64");
}

/** `client_state` back into parameters; {} when there is none or it is not ours (not base64): the token check then refuses. */
export function decodeStreamClientState(clientState: string | null | undefined): Record<string, string> {
  if (!clientState || !BASE64.test(clientState)) return {};
  return Object.fromEntries(new URLSearchParams(Buffer.from(clientState, "base64").toString("utf8")));
}

/** The only media format we take: G.711 µ-law at 8 kHz, mono (`stream_bidirectional_codec` PCMU, the default). */
function unsupportedFormat(format: NonNullable<TelnyxMessage["start"]>["media_format"]): string | null {
  if (format?.encoding === "PCMU" && Number(format.sample_rate) === 8000 && (format.channels === undefined || Number(format.channels) === 1)) return null;
  const part = (value: unknown) => String(value).slice(0, 12);
  // A close reason is at most 123 bytes: Telnyx's own values are cut short.
  return `unsupported media format ${format ? `${part(format.encoding)}/${part(format.sample_rate)}/${part(format.channels ?? 1)}` : "(none)"}: PCMU/8000/1 only`;
}

/**
 * A Telnyx media streaming WebSocket as a media leg (server/voice/conversation/media-leg.ts), bidirectional in RTP mode
 * (`stream_bidirectional_mode: rtp`, `stream_bidirectional_codec: PCMU`). Telnyx is the WebSocket client of our
 * `stream_url`.
 *
 * In: `connected` (ignored); `start` (`stream_id`, `call_control_id`, our parameters from `client_state`, the media
 * format — anything but PCMU/8000 mono is refused: the socket is closed with 1008 and the reason, and no `start` event
 * comes); `media` (base64 µ-law with its timestamp in ms since the stream started; only the `inbound` track is the
 * callee's, `outbound` frames — what is played to the callee, with `stream_track: both_tracks` — are dropped); `mark` (a
 * mark we sent was played, or dropped by a `clear`: Telnyx returns queued marks on `clear`); `dtmf`; `stop` (the leg
 * stops, and we close the socket if Telnyx has not); `error` (ignored: the port has no error event). Out: `media`
 * `{payload}`, `mark` `{name}`, `clear` — Telnyx's app frames carry no `stream_id`.
 *
 * `continuousClock` is false: Telnyx documents that media frame order is not guaranteed and does not promise a frame
 * every 20 ms, so a gap between two timestamps is not known to be lost audio and the transport does not pad it with
 * silence (the timestamps still serve the stream's clock for redaction).
 *
 * No `sendDigits`: Telnyx's media stream takes only `media`, `mark` and `clear` from us. Keys are played with Call
 * Control's `send_dtmf` on the call, as Twilio's are with a redirect (dtmf.ts).
 */
export class TelnyxMediaStreamLeg extends JsonMediaLeg<TelnyxMessage> {
  protected read(message: TelnyxMessage) {
    switch (message.event) {
      case "media": {
        const media = message.media;
        if (!this.started || !media || media.track !== "inbound" || typeof media.payload !== "string") return;
        this.heard(media.payload, media.timestamp);
        return;
      }
      case "start": {
        if (this.started) return;
        const start = message.start;
        const refused = unsupportedFormat(start?.media_format);
        if (refused) return this.close({ reason: refused });
        this.begin({ streamId: message.stream_id ?? "", carrierCallId: start?.call_control_id ?? "", parameters: decodeStreamClientState(start?.client_state), continuousClock: false });
        return;
      }
      case "mark":
        this.markReached(message.mark?.name);
        return;
      case "dtmf":
        this.pressed(message.dtmf?.digit);
        return;
      case "stop":
        this.stop();
        this.ws.close();
        return;
      default:
        return;
    }
  }

  sendAudio(audio: Uint8Array) {
    this.send({ event: "media", media: { payload: this.payloadOf(audio) } });
  }

  mark(name: string) {
    this.send({ event: "mark", mark: { name } });
  }

  clear() {
    this.send({ event: "clear" });
  }
}
