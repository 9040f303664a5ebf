import { randomUUID } from "node:crypto";
import WebSocket from "ws";
import { ULAW_SILENCE } from "@/server/voice/g711";
import { FRAME_BYTES } from "../callee-voice";

/**
 * One media stream of a call, as Telnyx runs it: Telnyx is the WebSocket client of the app's `stream_url`.
 * Written from:
 * - https://developers.telnyx.com/docs/voice/programmable-voice/media-streaming — `stream_url`, `stream_track`
 *   (`inbound_track` default, `outbound_track`, `both_tracks`), `stream_bidirectional_mode` (`mp3` default, `rtp`),
 *   `stream_bidirectional_codec` (PCMU default); base64 RTP payloads without headers wrapped in JSON;
 * - https://developers.telnyx.com/api-reference/websockets/stream-call-media-over-websocket — the frames:
 *   `connected` `{event, version}`; `start` `{event, sequence_number, start: {user_id, call_control_id, client_state,
 *   media_format: {encoding, sample_rate, channels}}, stream_id}`; `media` `{event, sequence_number, media: {track,
 *   chunk, timestamp, payload}, stream_id}`; `stop` `{event, sequence_number, stop: {user_id, call_control_id},
 *   stream_id}`; `dtmf` `{event, sequence_number, occurred_at, dtmf: {digit}, stream_id}`; `mark` (a submitted mark
 *   comes back when the media before it has played, at once when nothing is queued, and `clear` returns queued
 *   marks); `error` `{event, sequence_number, payload: {code, title, detail}, stream_id}`; from the app: `media`
 *   `{event, media: {payload}}` (RTP mode: 20 ms to 30 s of audio per frame), `mark` `{event, mark: {name}}`, `clear`.
 * - https://developers.telnyx.com/api/call-control/start-call-streaming — the same frames for `streaming_start`.
 * Only PCMU at 8 kHz is carried (both directions); MP3 playback frames are answered with an error frame.
 */

export type StreamOptions = {
  url: string;
  track: "inbound_track" | "outbound_track" | "both_tracks";
  /** `rtp`: the app's media frames are played; anything else (mp3, unset) is not carried by the simulator. */
  bidirectionalMode: string | null;
  callControlId: string;
  clientState: string | null;
  userId: string;
  resolvePublicUrl: (url: string) => string;
};

type OutboundItem = { kind: "audio"; bytes: Buffer } | { kind: "mark"; name: string };

/** The longest audio one RTP media frame may carry (30 s of 8 kHz µ-law). */
const MAX_FRAME_BYTES = 8000 * 30;

export class MediaStream {
  readonly streamId = randomUUID();
  /** Every frame the app sent, for tests: `{event, mark?}`. */
  readonly received: Array<{ event: string; mark?: string }> = [];
  /** The utterance being played: open from its first frame until its `done:` mark or a `clear`; frames played so far. */
  agentItem = { open: false, frames: 0 };
  private ws: WebSocket | null = null;
  private sequence = 0;
  private firstMediaMs: number | null = null;
  private readonly chunks = { inbound: 0, outbound: 0 };
  private queue: OutboundItem[] = [];
  private closedByApp: () => void = () => {};
  /** Resolves when the app closes the socket (or it drops). */
  readonly closed: Promise<void> = new Promise((resolve) => (this.closedByApp = resolve));

  constructor(readonly options: StreamOptions) {}

  get isOpen(): boolean {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  get streamsInbound(): boolean {
    return this.options.track !== "outbound_track";
  }

  get streamsOutbound(): boolean {
    return this.options.track !== "inbound_track";
  }

  /** Connects, then sends `connected` and `start`. False when the app's server refused or could not be reached. */
  async open(): Promise<boolean> {
    const ws = new WebSocket(this.options.resolvePublicUrl(this.options.url));
    const opened = await new Promise<boolean>((resolve) => {
      ws.once("open", () => resolve(true));
      ws.once("error", () => resolve(false));
      ws.once("unexpected-response", () => resolve(false));
    });
    if (!opened) return false;
    this.ws = ws;
    ws.on("message", (data) => this.onMessage(data.toString()));
    ws.once("close", () => {
      this.ws = null;
      this.closedByApp();
    });
    ws.send(JSON.stringify({ event: "connected", version: "1.0.0" }));
    this.send({
      event: "start",
      start: {
        user_id: this.options.userId,
        call_control_id: this.options.callControlId,
        client_state: this.options.clientState,
        media_format: { encoding: "PCMU", sample_rate: 8000, channels: 1 },
      },
    });
    return true;
  }

  /**
   * One 20 ms frame of a track (`inbound`: the callee; `outbound`: what was played to the callee), taken at `mediaMs`
   * on the call's clock: `chunk` counts the track's frames from 1 and `timestamp` is ms since the stream started.
   */
  sendMedia(track: "inbound" | "outbound", frame: Buffer, mediaMs: number): void {
    if ((track === "inbound" && !this.streamsInbound) || (track === "outbound" && !this.streamsOutbound)) return;
    this.firstMediaMs ??= mediaMs;
    this.chunks[track] += 1;
    this.send({ event: "media", media: { track, chunk: String(this.chunks[track]), timestamp: String(mediaMs - this.firstMediaMs), payload: frame.toString("base64") } });
  }

  dtmf(digit: string): void {
    this.send({ event: "dtmf", occurred_at: new Date().toISOString(), dtmf: { digit } });
  }

  /**
   * The next 20 ms of what the app sent, or null when nothing is queued. Marks reached before it are sent back; the
   * caller sends the marks right after it with `flushMarks` once the frame is out. A `done:` mark closes the utterance
   * (as in the Twilio simulator: a callee waits for the end of the agent's item, not for a gap in its audio).
   */
  playFrame(): Buffer | null {
    this.flushMarks();
    const frame = Buffer.alloc(FRAME_BYTES, ULAW_SILENCE);
    let filled = 0;
    while (filled < FRAME_BYTES && this.queue[0]?.kind === "audio") {
      const item = this.queue[0];
      const take = Math.min(FRAME_BYTES - filled, item.bytes.length);
      item.bytes.copy(frame, filled, 0, take);
      filled += take;
      if (take === item.bytes.length) this.queue.shift();
      else item.bytes = item.bytes.subarray(take);
    }
    if (filled === 0) return null;
    this.agentItem.open = true;
    this.agentItem.frames += 1;
    return frame;
  }

  /** Telnyx stops the stream (`streaming_stop`, hang-up): a `stop` frame, then the socket is closed. */
  stop(): void {
    const ws = this.ws;
    if (!ws) return;
    this.send({ event: "stop", stop: { user_id: this.options.userId, call_control_id: this.options.callControlId } });
    this.ws = null;
    this.queue = [];
    ws.close(1000);
  }

  flushMarks(): void {
    while (this.queue[0]?.kind === "mark") {
      const mark = this.queue.shift() as Extract<OutboundItem, { kind: "mark" }>;
      if (mark.name.startsWith("done:")) this.agentItem = { open: false, frames: 0 };
      this.send({ event: "mark", mark: { name: mark.name } });
    }
  }

  private error(code: number, title: string, detail: string): void {
    this.send({ event: "error", payload: { code, title, detail } });
  }

  private onMessage(raw: string): void {
    let message: { event?: unknown; media?: { payload?: unknown }; mark?: { name?: unknown } };
    try {
      message = JSON.parse(raw);
    } catch {
      return this.error(100003, "malformed_frame", "The frame is not valid JSON.");
    }
    const event = typeof message.event === "string" ? message.event : "";
    this.received.push({ event, ...(typeof message.mark?.name === "string" ? { mark: message.mark.name } : {}) });
    if (event === "media") {
      if (this.options.bidirectionalMode !== "rtp") return this.error(100004, "invalid_media", "The simulator plays RTP media only (stream_bidirectional_mode=rtp); MP3 playback is not simulated.");
      const payload = typeof message.media?.payload === "string" ? Buffer.from(message.media.payload, "base64") : Buffer.alloc(0);
      if (payload.length === 0 || payload.length > MAX_FRAME_BYTES) return this.error(100004, "invalid_media", "A media frame carries 20 ms to 30 s of audio.");
      this.queue.push({ kind: "audio", bytes: payload });
    } else if (event === "mark" && typeof message.mark?.name === "string") {
      this.queue.push({ kind: "mark", name: message.mark.name });
      // Nothing playing or queued before it: it comes back at once.
      if (this.queue.length === 1) this.flushMarks();
    } else if (event === "clear") {
      const marks = this.queue.filter((item): item is Extract<OutboundItem, { kind: "mark" }> => item.kind === "mark");
      this.queue = [];
      this.agentItem = { open: false, frames: 0 };
      for (const mark of marks) this.send({ event: "mark", mark: { name: mark.name } });
    } else {
      this.error(100003, "malformed_frame", `Unknown event ${JSON.stringify(event)}.`);
    }
  }

  private send(message: Record<string, unknown>): void {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return;
    this.sequence += 1;
    this.ws.send(JSON.stringify({ ...message, sequence_number: String(this.sequence), stream_id: this.streamId }));
  }
}
