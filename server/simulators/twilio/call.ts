import { randomBytes } from "node:crypto";
import WebSocket from "ws";
import { ULAW_SILENCE, ulawChannelsToWav } from "@/server/voice/g711";
import { calleeScenarioFor, type CalleeScenario } from "../voice-script";
import { clipForText, loadClip, type VoiceClipId } from "../voice-clips/clips";
import { twilioSignature } from "./signing";
import { parseTwiml, type TwimlVerb } from "./twiml";

export type CallStatus = "queued" | "initiated" | "ringing" | "in-progress" | "completed" | "busy" | "failed" | "no-answer" | "canceled";
const FINAL: CallStatus[] = ["completed", "busy", "failed", "no-answer", "canceled"];

export type SentCallback = { kind: "status" | "amd" | "recording" | "twiml"; url: string; params: Record<string, string>; signature: string; status: number | null };

export type SimCallEnvironment = {
  accountSid: string;
  authToken: string;
  /** Media milliseconds per wall millisecond. */
  speed: number;
  resolvePublicUrl: (url: string) => string;
  callbacks: SentCallback[];
  log: (message: string) => void;
  /** Callees who hang up the moment the media stream has started (tests: a callee gone before the agent says a word). */
  hangsUpAtStreamStart?: (to: string) => boolean;
};

export type CreateCallParams = Record<string, string | string[]>;

const FRAME_BYTES = 160;
const FRAME_MS = 20;

export function newSid(prefix: string): string {
  return prefix + randomBytes(16).toString("hex");
}

const one = (params: CreateCallParams, key: string): string | undefined => {
  const value = params[key];
  return Array.isArray(value) ? value[0] : value;
};
const many = (params: CreateCallParams, key: string): string[] => {
  const value = params[key];
  return (Array.isArray(value) ? value : value ? [value] : []).flatMap((v) => v.split(/[\s,]+/)).filter(Boolean);
};

type OutboundItem = { kind: "audio"; bytes: Buffer } | { kind: "mark"; name: string };
type Action = { kind: "hangup" } | { kind: "redirect"; verbs: TwimlVerb[] };

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
 * One call as Twilio runs it: ringing, the outcome of the dialed number's last digit (voice-script.ts), the TwiML
 * fetched at answer and executed (`<Connect><Stream>` as a Media Streams client, `<Say>`, `<Pause>`, `<Hangup>`),
 * asynchronous answering-machine detection, signed status / AMD / recording callbacks, and a dual-channel
 * recording of both directions on one media clock (channel 1: the callee, channel 2: what we played).
 */
export class SimCall {
  readonly sid = newSid("CA");
  status: CallStatus = "queued";
  readonly scenario: CalleeScenario;
  readonly to: string;
  readonly from: string;
  readonly createdAt = new Date();
  answeredBy: string | null = null;
  startTime: Date | null = null;
  endTime: Date | null = null;
  /** Media time since the answer, in ms. */
  mediaMs = 0;
  durationSeconds = 0;
  recordingSid: string | null = null;
  recordingAvailable = false;
  recordingDurationSeconds = 0;
  /** Recording API: where the recording was stopped (media ms; nothing after it is kept), paused spans, deletion. */
  recordingStoppedAtMs: number | null = null;
  readonly recordingPauses: Array<{ fromMs: number; toMs: number | null }> = [];
  recordingDeleted = false;
  private recordingCallbackSent = false;
  /** What the call did, for tests: played TwiML, stream messages received, errors. */
  readonly events: string[] = [];
  readonly streamMessages: Array<Record<string, unknown>> = [];
  readonly said: string[] = [];
  private readonly inbound = new Track();
  private readonly outbound = new Track();
  private outboundQueue: OutboundItem[] = [];
  private outboundIdleFrames = 0;
  private pendingAction: Action | null = null;
  private actionWaiters: Array<() => void> = [];
  private ws: WebSocket | null = null;
  private streamSid: string | null = null;
  private sequence = 0;
  private ticker: NodeJS.Timeout | null = null;
  private tickStartedAt = 0;
  private framesDone = 0;
  private callee: CalleeVoice | null = null;
  private finished: Promise<void>;
  private callbackSequence = 0;

  constructor(
    private readonly env: SimCallEnvironment,
    readonly params: CreateCallParams,
  ) {
    this.to = one(params, "To") ?? "";
    this.from = one(params, "From") ?? "";
    this.scenario = calleeScenarioFor(this.to);
    this.finished = this.run().catch((error: unknown) => {
      this.env.log(`call ${this.sid} crashed: ${error instanceof Error ? error.stack : String(error)}`);
      this.finish("failed");
    });
  }

  get isFinal(): boolean {
    return FINAL.includes(this.status);
  }

  done(): Promise<void> {
    return this.finished;
  }

  /** The recording as Twilio serves it at `…/Recordings/{sid}.wav`: 16-bit PCM, one channel per direction. */
  recordingWav(): Buffer {
    const dual = one(this.params, "RecordingChannels") === "dual";
    const recorded = Math.max(this.inbound.length, this.outbound.length);
    const length = this.recordingStoppedAtMs === null ? recorded : Math.min(recorded, this.recordingStoppedAtMs * 8);
    if (this.recordingPauses.length > 0 || length < recorded) return this.recordingWavOf(length, dual);
    if (dual) return ulawChannelsToWav([this.inbound.bytes(length), this.outbound.bytes(length)]);
    const mixed = Buffer.alloc(length, ULAW_SILENCE);
    // Mono: the louder side of each sample (a crude mix, enough for a listener).
    const a = this.inbound.bytes(length);
    const b = this.outbound.bytes(length);
    for (let i = 0; i < length; i += 1) mixed[i] = (a[i]! & 0x7f) < (b[i]! & 0x7f) ? a[i]! : b[i]!;
    return ulawChannelsToWav([mixed]);
  }

  /** What was said and played on the call, as µ-law (tests: where a text's audio is, whatever happened to the recording). */
  tracks(): { callee: Buffer; played: Buffer } {
    return { callee: Buffer.from(this.inbound.bytes()), played: Buffer.from(this.outbound.bytes()) };
  }

  /** The recording with paused spans silent (Twilio's default PauseBehavior `silence`), cut where it was stopped. */
  private recordingWavOf(length: number, dual: boolean): Buffer {
    const inbound = Buffer.from(this.inbound.bytes(length));
    const outbound = Buffer.from(this.outbound.bytes(length));
    for (const pause of this.recordingPauses) {
      const from = pause.fromMs * 8;
      const to = Math.min(length, (pause.toMs ?? this.mediaMs) * 8);
      if (to > from) {
        inbound.fill(ULAW_SILENCE, from, to);
        outbound.fill(ULAW_SILENCE, from, to);
      }
    }
    if (dual) return ulawChannelsToWav([inbound, outbound]);
    for (let i = 0; i < length; i += 1) if ((outbound[i]! & 0x7f) < (inbound[i]! & 0x7f)) inbound[i] = outbound[i]!;
    return ulawChannelsToWav([inbound]);
  }

  get recordingStatus(): "in-progress" | "paused" | "stopped" | "completed" | "absent" {
    if (!this.recordingSid) return "absent";
    if (this.recordingStoppedAtMs !== null || this.recordingCallbackSent) return this.isFinal || this.recordingCallbackSent ? "completed" : "stopped";
    return this.recordingPauses.some((pause) => pause.toMs === null) ? "paused" : "in-progress";
  }

  /**
   * REST `POST Calls/{sid}/Recordings/{sid|Twilio.CURRENT}.json` with `Status`: `paused` (silence from now),
   * `in-progress` (resume), `stopped` (the recording ends now; its status callback is sent at once, as Twilio does).
   * Returns false when there is no recording in progress to change.
   */
  updateRecording(status: string): boolean {
    if (!this.recordingSid || this.recordingStoppedAtMs !== null || this.isFinal) return false;
    const open = this.recordingPauses.find((pause) => pause.toMs === null);
    if (status === "paused" && !open) this.recordingPauses.push({ fromMs: this.mediaMs, toMs: null });
    else if (status === "in-progress" && open) open.toMs = this.mediaMs;
    else if (status === "stopped") {
      if (open) open.toMs = this.mediaMs;
      this.recordingStoppedAtMs = this.mediaMs;
      this.events.push(`recording-stopped@${this.mediaMs}`);
      void this.sendRecordingCallback(Math.ceil(this.mediaMs / 1000));
    } else if (status !== "paused" && status !== "in-progress") throw new Error(`Status must be paused, in-progress or stopped, not ${status}`);
    return true;
  }

  recordingJson() {
    return {
      sid: this.recordingSid,
      account_sid: this.env.accountSid,
      call_sid: this.sid,
      status: this.recordingStatus,
      channels: one(this.params, "RecordingChannels") === "dual" ? 2 : 1,
      source: "OutboundAPI",
      duration: String(this.recordingDurationSeconds || -1),
      start_time: (this.startTime ?? new Date()).toUTCString(),
      date_updated: new Date().toUTCString(),
      api_version: "2010-04-01",
      uri: `/2010-04-01/Accounts/${this.env.accountSid}/Calls/${this.sid}/Recordings/${this.recordingSid}.json`,
    };
  }

  private async sendRecordingCallback(durationSeconds: number): Promise<void> {
    if (this.recordingCallbackSent || !this.recordingSid) return;
    this.recordingCallbackSent = true;
    this.recordingDurationSeconds = durationSeconds;
    this.recordingAvailable = this.scenario.kind !== "human" || this.scenario.recording === "available";
    await new Promise((resolve) => setTimeout(resolve, 50));
    const url = one(this.params, "RecordingStatusCallback");
    if (!url) return;
    await this.callback("recording", url, {
      AccountSid: this.env.accountSid,
      CallSid: this.sid,
      RecordingSid: this.recordingSid,
      RecordingUrl: `https://api.twilio.com/2010-04-01/Accounts/${this.env.accountSid}/Recordings/${this.recordingSid}`,
      RecordingStatus: "completed",
      RecordingDuration: String(this.recordingDurationSeconds),
      RecordingChannels: one(this.params, "RecordingChannels") === "dual" ? "2" : "1",
      RecordingSource: "OutboundAPI",
      RecordingStartTime: (this.startTime ?? new Date()).toUTCString(),
      ErrorCode: "0",
    });
  }

  /** REST `POST Calls/{sid}.json`: `Status=completed|canceled`, or new TwiML (`Twiml`) that replaces what runs now. */
  update(form: URLSearchParams): void {
    const status = form.get("Status");
    const twiml = form.get("Twiml");
    if (status === "completed" || status === "canceled") {
      if (this.status === "queued" || this.status === "initiated" || this.status === "ringing") this.setAction({ kind: "hangup" }, "canceled");
      else this.setAction({ kind: "hangup" });
    } else if (twiml) {
      this.setAction({ kind: "redirect", verbs: parseTwiml(twiml) });
    }
  }

  toJson() {
    return {
      sid: this.sid,
      account_sid: this.env.accountSid,
      to: this.to,
      from: this.from,
      status: this.status,
      direction: "outbound-api",
      answered_by: this.answeredBy,
      start_time: this.startTime?.toUTCString() ?? null,
      end_time: this.endTime?.toUTCString() ?? null,
      duration: this.isFinal ? String(this.durationSeconds) : null,
      date_created: this.createdAt.toUTCString(),
      date_updated: new Date().toUTCString(),
      api_version: "2010-04-01",
      uri: `/2010-04-01/Accounts/${this.env.accountSid}/Calls/${this.sid}.json`,
    };
  }

  private cancelRequested: CallStatus | null = null;

  private setAction(action: Action, cancelStatus?: CallStatus) {
    if (this.isFinal) return;
    if (cancelStatus) this.cancelRequested = cancelStatus;
    this.pendingAction = action;
    for (const waiter of this.actionWaiters.splice(0)) waiter();
  }

  private wallMs(mediaMs: number): number {
    return Math.max(1, mediaMs / this.env.speed);
  }

  private sleepMedia(mediaMs: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, this.wallMs(mediaMs));
      this.actionWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private async run(): Promise<void> {
    if (one(this.params, "Twiml") === undefined && !one(this.params, "Url")) throw new Error("no Url or Twiml");
    this.status = "initiated";
    await this.statusCallback("initiated");
    await this.sleepMedia(800);
    if (this.cancelRequested) return this.finish(this.cancelRequested);
    this.status = "ringing";
    await this.statusCallback("ringing");
    const timeoutSeconds = Number(one(this.params, "Timeout") ?? 60);
    switch (this.scenario.kind) {
      case "busy":
        await this.sleepMedia(1500);
        return this.finish(this.cancelRequested ?? "busy", { SipResponseCode: "486" });
      case "failed":
        await this.sleepMedia(1000);
        return this.finish(this.cancelRequested ?? "failed", { SipResponseCode: "503" });
      case "no-answer":
        await this.sleepMedia(timeoutSeconds * 1000);
        return this.finish(this.cancelRequested ?? "no-answer", { SipResponseCode: "487" });
      case "invalid-number":
        return this.finish("failed", { SipResponseCode: "404", ErrorCode: "13224" });
      default:
        break;
    }
    await this.sleepMedia(1200);
    if (this.cancelRequested) return this.finish(this.cancelRequested);
    this.status = "in-progress";
    this.startTime = new Date();
    // Record=true records from the answer; the Recording API can pause or stop it from now on.
    if (one(this.params, "Record") === "true") this.recordingSid = newSid("RE");
    this.callee = new CalleeVoice(this.scenario, (kind) => this.onCalleeMilestone(kind));
    this.startTicker();
    await this.statusCallback("answered");
    let verbs: TwimlVerb[];
    try {
      verbs = await this.fetchTwiml();
    } catch (error) {
      this.events.push(`twiml-error: ${error instanceof Error ? error.message : String(error)}`);
      verbs = [{ verb: "Say", text: "An application error has occurred. Goodbye.", voice: null }];
    }
    await this.execute(verbs);
    this.finish("completed");
  }

  private async execute(initial: TwimlVerb[]): Promise<void> {
    let verbs = [...initial];
    while (verbs.length > 0) {
      if (this.timeLimitReached()) return;
      const verb = verbs.shift()!;
      this.events.push(`verb:${verb.verb}`);
      if (verb.verb === "Hangup") return;
      if (verb.verb === "Connect.Stream") await this.runStream(verb);
      else if (verb.verb === "Say") await this.say(verb.text);
      else await this.waitMedia(verb.seconds * 1000);
      const action = this.takeAction();
      if (action?.kind === "hangup") return;
      if (action?.kind === "redirect") verbs = [...action.verbs];
    }
  }

  private takeAction(): Action | null {
    const action = this.pendingAction;
    this.pendingAction = null;
    return action;
  }

  private timeLimitReached(): boolean {
    const limit = Number(one(this.params, "TimeLimit") ?? 14_400);
    return this.mediaMs >= limit * 1000;
  }

  private async fetchTwiml(): Promise<TwimlVerb[]> {
    const inline = one(this.params, "Twiml");
    if (inline !== undefined) return parseTwiml(inline);
    const url = one(this.params, "Url")!;
    const params = this.baseParams({ CallStatus: "in-progress", Direction: "outbound-api" });
    const signature = twilioSignature(this.env.authToken, url, params);
    const entry: SentCallback = { kind: "twiml", url, params, signature, status: null };
    this.env.callbacks.push(entry);
    const response = await fetch(this.env.resolvePublicUrl(url), {
      method: (one(this.params, "Method") ?? "POST").toUpperCase(),
      headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": signature },
      body: new URLSearchParams(params).toString(),
      signal: AbortSignal.timeout(15_000),
    });
    entry.status = response.status;
    const text = await response.text();
    if (!response.ok) throw new Error(`11200 HTTP retrieval failure: ${response.status}`);
    return parseTwiml(text);
  }

  /** Waits media time, or until an action (hangup, new TwiML) arrives. */
  private async waitMedia(ms: number): Promise<void> {
    const until = this.mediaMs + ms;
    while (this.mediaMs < until && !this.pendingAction && !this.timeLimitReached()) await this.sleepMedia(Math.min(100, until - this.mediaMs));
  }

  private async say(text: string): Promise<void> {
    this.said.push(text);
    const clip = clipForText(text);
    // Unknown text: Twilio's TTS would speak it; the simulator plays silence of about its spoken length.
    const bytes = clip ? loadClip(clip) : Buffer.alloc(Math.min(30_000, text.length * 480), ULAW_SILENCE);
    if (!clip) this.events.push(`say-unknown-text: ${text.slice(0, 60)}`);
    this.outboundQueue.push({ kind: "audio", bytes });
    while (this.outboundQueue.length > 0 && !this.pendingAction && !this.timeLimitReached()) await this.sleepMedia(40);
    this.outboundQueue = [];
  }

  private async runStream(verb: Extract<TwimlVerb, { verb: "Connect.Stream" }>): Promise<void> {
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
    this.callee?.streamStarted();
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
    this.callee?.streamStopped();
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

  private sendOn(ws: WebSocket, message: Record<string, unknown>) {
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
      // The buffered audio is dropped; its marks come back at once.
      const marks = this.outboundQueue.filter((item): item is Extract<OutboundItem, { kind: "mark" }> => item.kind === "mark");
      this.outboundQueue = [];
      for (const mark of marks) this.send({ event: "mark", streamSid: this.streamSid, mark: { name: mark.name } });
    }
  }

  private startTicker() {
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
    const inbound = this.callee?.nextFrame(streaming, this.outboundIdleFrames) ?? null;
    const frame = inbound ?? Buffer.alloc(FRAME_BYTES, ULAW_SILENCE);
    this.inbound.write(at, frame);
    if (streaming) {
      this.send({ event: "media", media: { track: "inbound", chunk: String(this.framesDone), timestamp: String(this.mediaMs - FRAME_MS), payload: frame.toString("base64") }, streamSid: this.streamSid });
    }
    const played = this.playOutboundFrame();
    if (played) {
      this.outbound.write(at, played);
      this.outboundIdleFrames = 0;
      this.callee?.agentSpoke();
    } else {
      this.outboundIdleFrames += 1;
    }
  }

  private playOutboundFrame(): Buffer | null {
    const frame = Buffer.alloc(FRAME_BYTES, ULAW_SILENCE);
    let filled = 0;
    const flushMarks = () => {
      while (this.outboundQueue[0]?.kind === "mark") {
        const mark = this.outboundQueue.shift() as Extract<OutboundItem, { kind: "mark" }>;
        this.send({ event: "mark", streamSid: this.streamSid, mark: { name: mark.name } });
      }
    };
    flushMarks();
    while (filled < FRAME_BYTES && this.outboundQueue.length > 0) {
      const item = this.outboundQueue[0]!;
      if (item.kind === "mark") break;
      const take = Math.min(FRAME_BYTES - filled, item.bytes.length);
      item.bytes.copy(frame, filled, 0, take);
      filled += take;
      if (take === item.bytes.length) this.outboundQueue.shift();
      else item.bytes = item.bytes.subarray(take);
    }
    if (filled === 0) return null;
    flushMarks();
    return frame;
  }

  private onCalleeMilestone(kind: "first-line-done" | "greeting-done") {
    if (!/^DetectMessageEnd|Enable$/.test(one(this.params, "MachineDetection") ?? "") || one(this.params, "AsyncAmd") !== "true") return;
    const answeredBy = kind === "greeting-done" ? "machine_end_beep" : "human";
    this.answeredBy = answeredBy;
    const url = one(this.params, "AsyncAmdStatusCallback");
    if (url) void this.callback("amd", url, this.baseParams({ AnsweredBy: answeredBy, MachineDetectionDuration: String(this.mediaMs) }));
  }

  private baseParams(extra: Record<string, string>): Record<string, string> {
    return { AccountSid: this.env.accountSid, CallSid: this.sid, From: this.from, To: this.to, ApiVersion: "2010-04-01", ...extra };
  }

  private async statusCallback(event: "initiated" | "ringing" | "answered" | "completed", extra: Record<string, string> = {}) {
    const url = one(this.params, "StatusCallback");
    const events = many(this.params, "StatusCallbackEvent");
    if (!url || (event !== "completed" && !events.includes(event))) return;
    this.callbackSequence += 1;
    await this.callback(
      "status",
      url,
      this.baseParams({
        CallStatus: this.status,
        Direction: "outbound-api",
        CallbackSource: "call-progress-events",
        SequenceNumber: String(this.callbackSequence - 1),
        Timestamp: new Date().toUTCString(),
        ...extra,
      }),
    );
  }

  private async callback(kind: SentCallback["kind"], url: string, params: Record<string, string>) {
    const signature = twilioSignature(this.env.authToken, url, params);
    const entry: SentCallback = { kind, url, params, signature, status: null };
    this.env.callbacks.push(entry);
    try {
      const response = await fetch(this.env.resolvePublicUrl(url), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": signature },
        body: new URLSearchParams(params).toString(),
        signal: AbortSignal.timeout(15_000),
      });
      entry.status = response.status;
      await response.arrayBuffer();
    } catch (error) {
      this.env.log(`${kind} callback to ${url} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private finishing = false;

  private finish(status: CallStatus, extra: Record<string, string> = {}) {
    if (this.finishing) return;
    this.finishing = true;
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
    if (this.ws) {
      this.sendOn(this.ws, { event: "stop", stop: { accountSid: this.env.accountSid, callSid: this.sid }, streamSid: this.streamSid });
      this.ws.close(1000);
      this.ws = null;
    }
    this.status = status;
    this.endTime = new Date();
    this.durationSeconds = this.startTime ? Math.ceil(this.mediaMs / 1000) : 0;
    const recorded = one(this.params, "Record") === "true" && this.startTime !== null;
    void (async () => {
      await this.statusCallback("completed", { CallDuration: String(this.durationSeconds), Duration: String(Math.ceil(this.durationSeconds / 60)), ...extra });
      if (!recorded) return;
      this.recordingSid ??= newSid("RE");
      // A recording stopped during the call has sent its callback already.
      await this.sendRecordingCallback(this.durationSeconds);
    })().finally(() => this.events.push("callbacks-done"));
  }
}

/**
 * The callee's side of the line: its scripted utterances, each said once the agent has spoken and gone quiet (a
 * person waits for their turn); a machine plays its greeting and beep without waiting.
 */
class CalleeVoice {
  private index = 0;
  private speaking: Buffer | null = null;
  private position = 0;
  /** A person picks up and says hello after about a second. */
  private gapFrames = 50;
  private agentSpokeSinceLine = false;
  private streaming = false;

  constructor(
    private readonly scenario: CalleeScenario,
    private readonly milestone: (kind: "first-line-done" | "greeting-done") => void,
  ) {}

  private get lines(): VoiceClipId[] {
    return this.scenario.kind === "human" || this.scenario.kind === "machine" ? this.scenario.lines : [];
  }

  streamStarted() {
    this.streaming = true;
  }

  streamStopped() {
    this.streaming = false;
  }

  agentSpoke() {
    this.agentSpokeSinceLine = true;
  }

  /**
   * Frames of silence before the detector reports: after a person's first words, `MachineDetectionSpeechEndThreshold`
   * (default 1,200 ms, twilio.com/docs/voice/answering-machine-detection); after a machine's beep, a second.
   */
  private amdCountdown = -1;
  private amdVerdict: "first-line-done" | "greeting-done" = "greeting-done";

  nextFrame(streaming: boolean, outboundIdleFrames: number): Buffer | null {
    if (this.amdCountdown > 0 && (this.amdCountdown -= 1) === 0) this.milestone(this.amdVerdict);
    if (!streaming && !this.speaking) return null;
    if (!this.speaking) {
      if (this.index >= this.lines.length) return null;
      if (this.gapFrames > 0) {
        this.gapFrames -= 1;
        return null;
      }
      const machine = this.scenario.kind === "machine";
      const myTurn = machine || this.index === 0 || (this.agentSpokeSinceLine && outboundIdleFrames >= 40);
      if (!myTurn) return null;
      this.speaking = loadClip(this.lines[this.index]!);
      this.position = 0;
      this.agentSpokeSinceLine = false;
    }
    const frame = Buffer.alloc(FRAME_BYTES, ULAW_SILENCE);
    const take = Math.min(FRAME_BYTES, this.speaking.length - this.position);
    this.speaking.copy(frame, 0, this.position, this.position + take);
    this.position += take;
    if (this.position >= this.speaking.length) {
      this.speaking = null;
      this.index += 1;
      this.gapFrames = this.scenario.kind === "machine" ? 15 : 0;
      if (this.scenario.kind === "human" && this.index === 1) [this.amdVerdict, this.amdCountdown] = ["first-line-done", 60];
      if (this.scenario.kind === "machine" && this.index === this.lines.length) [this.amdVerdict, this.amdCountdown] = ["greeting-done", 50];
    }
    return frame;
  }
}
