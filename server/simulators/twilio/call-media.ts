import WebSocket from "ws";
import { ULAW_SILENCE } from "@/server/voice/g711";
import { loadClip } from "../voice-clips/clips";
import { CallCore } from "./call-core";
import { FRAME_BYTES, FRAME_MS, newSid, type OutboundItem } from "./call-types";
import type { CalleeVoice } from "../callee-voice";
import type { JoinOptions, SimRoom } from "./conference";
import { twilioSignature } from "./signing";
import type { TwimlVerb } from "./twiml";

/** A growable µ-law track, indexed by media time (8 bytes per ms). */
class Track {
  private buffer = Buffer.alloc(8000 * 60, ULAW_SILENCE);
  length = 0;
  write(at: number, bytes: Uint8Array) {
    if (at + bytes.length > this.buffer.length) {
      const bigger = Buffer.alloc(Math.max(this.buffer.length * 2, at + bytes.length), ULAW_SILENCE);
      this.buffer.copy(bigger);
      this.buffer = bigger;
    }
    this.buffer.set(bytes, at);
    this.length = Math.max(this.length, at + bytes.length);
  }
  bytes(length = this.length): Buffer {
    return this.buffer.subarray(0, length);
  }
}

/**
 * A call's media, 20 ms at a time on its own clock (`tick`): the callee's voice goes out and into the inbound track,
 * what we play (TwiML audio, the agent's stream, the others in a room, hold music) into the outbound track; the
 * Media Streams WebSocket client (`<Connect><Stream>`: connected/start/media/mark/dtmf/stop, the app's media, mark
 * and clear); and the rooms (conference, `<Dial>` bridge) the call talks in.
 */
export abstract class CallMedia extends CallCore {
  readonly streamMessages: Array<Record<string, unknown>> = [];
  /** On the call's media clock (ms since the answer): what the callee said, and when our stream's audio played. */
  readonly calleeSpans: Array<{ clip: string; startMs: number; endMs: number }> = [];
  readonly agentSpans: Array<{ startMs: number; endMs: number }> = [];
  protected readonly inbound = new Track();
  protected readonly outbound = new Track();
  protected outboundQueue: OutboundItem[] = [];
  private outboundIdleFrames = 0;
  /**
   * The agent's current utterance over the stream: open from its first frame played until its `done:` mark is reached
   * (the SDK marks the end of each item) or the audio is cleared; and how many frames of it have played. A person
   * waits for the end of the agent's sentence, not for a gap in its audio (a starved sender leaves gaps).
   */
  private agentItemOpen = false;
  private agentItemFrames = 0;
  protected ws: WebSocket | null = null;
  protected streamSid: string | null = null;
  private sequence = 0;
  protected ticker: NodeJS.Timeout | null = null;
  private tickStartedAt = 0;
  private framesDone = 0;
  protected callee: CalleeVoice | null = null;
  /** The room this call talks in (a conference, or a `<Dial>` bridge), and what it hears from the others there. */
  private room: SimRoom | null = null;
  private heard: Buffer[] = [];
  private holdMusic = false;
  private holdPosition = 0;
  /**
   * The longest the callee heard nothing at all (media ms) from being put on hold in a conference until someone spoke
   * to them again (a person in the room, or the agent back on the stream): "nobody is left in silence".
   */
  longestSilenceSinceHoldMs = 0;
  private holdWatch: { silentMs: number } | null = null;
  /** A `<Record>` is listening now. */
  protected recording = false;

  /** Talks in a room until it ends, this call gets new instructions (or hangs up), or the time limit. */
  protected async joinRoom(room: SimRoom, options: JoinOptions, holdMusic: boolean): Promise<void> {
    this.room = room;
    this.holdMusic = holdMusic;
    if (!room.started) this.holdWatch = { silentMs: 0 };
    const ended = room.join(this, options);
    const actionArrived = new Promise<void>((resolve) => this.actionWaiters.push(resolve));
    const limit = (async () => {
      while (!this.timeLimitReached() && this.room === room && !room.ended) await this.sleepMedia(250);
    })();
    await Promise.race([ended, actionArrived, limit]);
    this.leaveRoom();
  }

  protected leaveRoom() {
    const room = this.room;
    this.room = null;
    this.heard = [];
    room?.leave(this);
  }

  /** A frame of what another participant of this call's room said. */
  hear(frame: Buffer): void {
    this.heard.push(frame);
    if (this.heard.length > 25) this.heard.shift();
  }

  /** The callee presses keys during the media stream (Media Streams `dtmf` messages, one per key). */
  pressKeys(digits: string): void {
    for (const digit of digits) this.send({ event: "dtmf", streamSid: this.streamSid, dtmf: { track: "inbound_track", digit } });
    this.events.push(`callee-pressed:${digits}`);
  }

  protected async runStream(verb: Extract<TwimlVerb, { verb: "Connect.Stream" }>): Promise<void> {
    if (!verb.url.startsWith("wss://")) {
      this.events.push("stream-error: 31922 Stream URL must use the wss scheme");
      return;
    }
    const signature = twilioSignature(this.env.authToken, verb.url, {});
    const ws = new WebSocket(this.env.resolvePublicUrl(verb.url), { headers: { "x-twilio-signature": signature } });
    const opened = await new Promise<boolean>((resolve) => {
      ws.once("open", () => resolve(true));
      ws.once("error", () => resolve(false));
      ws.once("unexpected-response", (_request, response) => {
        this.events.push(`stream-refused: ${response.statusCode}`);
        resolve(false);
      });
    });
    if (!opened) {
      this.events.push("stream-error: 31920 Stream - WebSocket - Handshake Error");
      return;
    }
    this.ws = ws;
    this.streamSid = newSid("MZ");
    this.sequence = 0;
    const closed = new Promise<void>((resolve) =>
      ws.once("close", (code, reason) => {
        // Who ended the stream, for a test's post-mortem (1000 from our side is logged as `stream-ended` alone).
        if (this.ws === ws) this.events.push(`stream-closed-by-app: ${code}${reason.length ? ` ${reason.toString()}` : ""}`);
        resolve();
      }),
    );
    ws.on("message", (data) => this.onStreamMessage(data.toString()));
    this.send({ event: "connected", protocol: "Call", version: "1.0.0" });
    this.send({
      event: "start",
      start: {
        accountSid: this.env.accountSid,
        streamSid: this.streamSid,
        callSid: this.sid,
        tracks: ["inbound"],
        customParameters: verb.parameters,
        mediaFormat: { encoding: "audio/x-mulaw", sampleRate: 8000, channels: 1 },
      },
      streamSid: this.streamSid,
    });
    if (this.env.hangsUpAtStreamStart?.(this.to)) {
      this.events.push("callee-hung-up-at-stream-start");
      this.finish("completed");
      return;
    }
    const actionArrived = new Promise<void>((resolve) => this.actionWaiters.push(resolve));
    const limit = (async () => {
      while (!this.timeLimitReached() && this.ws === ws) await this.sleepMedia(250);
    })();
    await Promise.race([closed, actionArrived, limit]);
    if (this.ws === ws) {
      this.ws = null;
      if (ws.readyState === WebSocket.OPEN) {
        this.sendOn(ws, { event: "stop", stop: { accountSid: this.env.accountSid, callSid: this.sid }, streamSid: this.streamSid });
        ws.close(1000);
      }
    }
    this.outboundQueue = [];
    this.events.push("stream-ended");
  }

  private send(message: Record<string, unknown>) {
    if (this.ws) this.sendOn(this.ws, message);
  }

  protected sendOn(ws: WebSocket, message: Record<string, unknown>) {
    this.sequence += 1;
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ ...message, sequenceNumber: String(this.sequence) }));
  }

  private onStreamMessage(raw: string) {
    let message: { event?: string; media?: { payload?: string }; mark?: { name?: string }; streamSid?: string };
    try {
      message = JSON.parse(raw);
    } catch {
      this.events.push("stream-error: 31951 invalid JSON");
      return;
    }
    if (message.streamSid !== this.streamSid) {
      this.events.push(`stream-error: 31951 unknown streamSid on ${message.event}`);
      return;
    }
    this.streamMessages.push({ event: message.event, ...(message.mark ? { mark: message.mark.name } : {}) });
    if (message.event === "media" && typeof message.media?.payload === "string") {
      this.outboundQueue.push({ kind: "audio", bytes: Buffer.from(message.media.payload, "base64") });
    } else if (message.event === "mark" && typeof message.mark?.name === "string") {
      this.outboundQueue.push({ kind: "mark", name: message.mark.name });
    } else if (message.event === "clear") {
      this.agentItemOpen = false;
      this.agentItemFrames = 0;
      // The buffered audio is dropped; its marks come back at once.
      const marks = this.outboundQueue.filter((item): item is Extract<OutboundItem, { kind: "mark" }> => item.kind === "mark");
      this.outboundQueue = [];
      for (const mark of marks) this.send({ event: "mark", streamSid: this.streamSid, mark: { name: mark.name } });
    }
  }

  protected startTicker() {
    this.tickStartedAt = performance.now();
    this.framesDone = 0;
    const interval = Math.max(1, Math.floor(FRAME_MS / this.env.speed));
    this.ticker = setInterval(() => {
      const due = Math.floor(((performance.now() - this.tickStartedAt) * this.env.speed) / FRAME_MS) - this.framesDone;
      for (let i = 0; i < Math.min(due, 200); i += 1) this.tick();
    }, interval);
  }

  /** 20 ms of media: the callee's frame goes out (and into channel 1), one frame of what we played into channel 2. */
  private tick() {
    const at = this.framesDone * FRAME_BYTES;
    this.framesDone += 1;
    this.mediaMs = this.framesDone * FRAME_MS;
    const streaming = this.ws !== null;
    const partners = this.room?.partnersOf(this) ?? [];
    // The callee talks when someone is there to hear: the agent's stream, a <Record>, or a person in the same room.
    const inbound = this.callee?.nextFrame(streaming || this.recording || partners.length > 0, this.outboundIdleFrames, { open: this.agentItemOpen, frames: this.agentItemFrames }) ?? null;
    const frame = inbound ?? Buffer.alloc(FRAME_BYTES, ULAW_SILENCE);
    this.inbound.write(at, frame);
    if (inbound) for (const partner of partners) partner.hear(inbound);
    if (streaming) {
      this.send({ event: "media", media: { track: "inbound", chunk: String(this.framesDone), timestamp: String(this.mediaMs - FRAME_MS), payload: frame.toString("base64") }, streamSid: this.streamSid });
    }
    const played = this.playOutboundFrame() ?? this.playRoomFrame();
    if (played) this.outbound.write(at, played.frame);
    if (this.holdWatch) {
      if (played?.speech) this.holdWatch = null;
      else if (played) this.holdWatch.silentMs = 0;
      else this.longestSilenceSinceHoldMs = Math.max(this.longestSilenceSinceHoldMs, (this.holdWatch.silentMs += FRAME_MS));
    }
    if (played?.speech && streaming) {
      const last = this.agentSpans.at(-1);
      if (last && this.outboundIdleFrames === 0 && last.endMs === this.mediaMs - FRAME_MS) last.endMs = this.mediaMs;
      else this.agentSpans.push({ startMs: this.mediaMs - FRAME_MS, endMs: this.mediaMs });
    }
    if (played?.speech) {
      this.outboundIdleFrames = 0;
      this.callee?.agentSpoke();
    } else {
      this.outboundIdleFrames += 1;
    }
  }

  /** In a room: what the others said, or the hold music while the conference waits to start. */
  private playRoomFrame(): { frame: Buffer; speech: boolean } | null {
    if (!this.room) return null;
    const heard = this.heard.shift();
    if (heard) return { frame: heard, speech: true };
    if (this.room.started || !this.holdMusic) return null;
    const music = loadClip("tone.hold-music");
    const frame = Buffer.alloc(FRAME_BYTES, ULAW_SILENCE);
    for (let i = 0; i < FRAME_BYTES; i += 1) frame[i] = music[(this.holdPosition + i) % music.length]!;
    this.holdPosition = (this.holdPosition + FRAME_BYTES) % music.length;
    return { frame, speech: false };
  }

  private playOutboundFrame(): { frame: Buffer; speech: boolean } | null {
    const frame = Buffer.alloc(FRAME_BYTES, ULAW_SILENCE);
    let filled = 0;
    const flushMarks = () => {
      while (this.outboundQueue[0]?.kind === "mark") {
        const mark = this.outboundQueue.shift() as Extract<OutboundItem, { kind: "mark" }>;
        if (mark.name.startsWith("done:")) {
          this.agentItemOpen = false;
          this.agentItemFrames = 0;
        }
        this.send({ event: "mark", streamSid: this.streamSid, mark: { name: mark.name } });
      }
    };
    flushMarks();
    let speech = false;
    while (filled < FRAME_BYTES && this.outboundQueue.length > 0) {
      const item = this.outboundQueue[0]!;
      if (item.kind === "mark") break;
      if (!item.tone) speech = true;
      const take = Math.min(FRAME_BYTES - filled, item.bytes.length);
      item.bytes.copy(frame, filled, 0, take);
      filled += take;
      if (take === item.bytes.length) this.outboundQueue.shift();
      else item.bytes = item.bytes.subarray(take);
    }
    if (filled === 0) return null;
    if (this.ws) {
      // Before the marks after it: a `done:` mark right behind the last frame closes the utterance.
      this.agentItemOpen = true;
      this.agentItemFrames += 1;
    }
    flushMarks();
    return { frame, speech };
  }
}
