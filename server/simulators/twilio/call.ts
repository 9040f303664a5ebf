import { randomBytes } from "node:crypto";
import WebSocket from "ws";
import { ULAW_SILENCE, ulawChannelsToWav } from "@/server/voice/g711";
import { calleeScenarioFor, clipOfLine, type CalleeLine, type CalleeScenario } from "../voice-script";
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
  /** Who answers a number instead of its last digit's callee (tests). */
  scenarioFor?: (to: string) => CalleeScenario | undefined;
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
  /** What the call did, for tests: played TwiML, stream messages received, errors. */
  readonly events: string[] = [];
  readonly streamMessages: Array<Record<string, unknown>> = [];
  readonly said: string[] = [];
  /** On the call's media clock (ms since the answer): what the callee said, and when our stream's audio played. */
  readonly calleeSpans: Array<{ clip: string; startMs: number; endMs: number }> = [];
  readonly agentSpans: Array<{ startMs: number; endMs: number }> = [];
  private readonly inbound = new Track();
  private readonly outbound = new Track();
  private outboundQueue: OutboundItem[] = [];
  private outboundIdleFrames = 0;
  /**
   * The agent's current utterance over the stream: open from its first frame played until its `done:` mark is reached
   * (the SDK marks the end of each item) or the audio is cleared; and how many frames of it have played. A person
   * waits for the end of the agent's sentence, not for a gap in its audio (a starved sender leaves gaps).
   */
  private agentItemOpen = false;
  private agentItemFrames = 0;
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
    this.scenario = this.env.scenarioFor?.(this.to) ?? calleeScenarioFor(this.to);
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
    const length = Math.max(this.inbound.length, this.outbound.length);
    if (dual) return ulawChannelsToWav([this.inbound.bytes(length), this.outbound.bytes(length)]);
    const mixed = Buffer.alloc(length, ULAW_SILENCE);
    // Mono: the louder side of each sample (a crude mix, enough for a listener).
    const a = this.inbound.bytes(length);
    const b = this.outbound.bytes(length);
    for (let i = 0; i < length; i += 1) mixed[i] = (a[i]! & 0x7f) < (b[i]! & 0x7f) ? a[i]! : b[i]!;
    return ulawChannelsToWav([mixed]);
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
    this.callee = new CalleeVoice(this.scenario, (kind) => this.onCalleeMilestone(kind), (clip, startMs, endMs) => this.calleeSpans.push({ clip, startMs, endMs }), () => this.mediaMs);
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
    const closed = new Promise<void>((resolve) => ws.once("close", () => resolve()));
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
      this.agentItemOpen = false;
      this.agentItemFrames = 0;
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
    const inbound = this.callee?.nextFrame(streaming, this.outboundIdleFrames, { open: this.agentItemOpen, frames: this.agentItemFrames }) ?? null;
    const frame = inbound ?? Buffer.alloc(FRAME_BYTES, ULAW_SILENCE);
    this.inbound.write(at, frame);
    if (streaming) {
      this.send({ event: "media", media: { track: "inbound", chunk: String(this.framesDone), timestamp: String(this.mediaMs - FRAME_MS), payload: frame.toString("base64") }, streamSid: this.streamSid });
    }
    const played = this.playOutboundFrame();
    if (played) {
      this.outbound.write(at, played);
      if (streaming) {
        const last = this.agentSpans.at(-1);
        if (last && this.outboundIdleFrames === 0 && last.endMs === this.mediaMs - FRAME_MS) last.endMs = this.mediaMs;
        else this.agentSpans.push({ startMs: this.mediaMs - FRAME_MS, endMs: this.mediaMs });
      }
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
        if (mark.name.startsWith("done:")) {
          this.agentItemOpen = false;
          this.agentItemFrames = 0;
        }
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
    if (this.ws) {
      // Before the marks after it: a `done:` mark right behind the last frame closes the utterance.
      this.agentItemOpen = true;
      this.agentItemFrames += 1;
    }
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
      this.recordingSid = newSid("RE");
      this.recordingDurationSeconds = this.durationSeconds;
      this.recordingAvailable = this.scenario.kind !== "human" || this.scenario.recording === "available";
      await new Promise((resolve) => setTimeout(resolve, 50));
      const url = one(this.params, "RecordingStatusCallback");
      if (url) {
        await this.callback(
          "recording",
          url,
          {
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
          },
        );
      }
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
  private speakingStartedMs = 0;
  private position = 0;
  /** A person picks up and says hello after about a second. */
  private gapFrames = 50;
  private agentSpokeSinceLine = false;
  private streaming = false;

  constructor(
    private readonly scenario: CalleeScenario,
    private readonly milestone: (kind: "first-line-done" | "greeting-done") => void,
    private readonly said: (clip: VoiceClipId, startMs: number, endMs: number) => void = () => {},
    private readonly mediaMs: () => number = () => 0,
  ) {}

  private get lines(): CalleeLine[] {
    return this.scenario.kind === "human" || this.scenario.kind === "machine" ? this.scenario.lines : [];
  }

  streamStarted() {
    this.streaming = true;
  }

  streamStopped() {
    this.streaming = false;
  }

  agentSpoke() {
    // What the agent says while the callee is still talking does not count as its reply to the callee's line.
    if (!this.speaking) this.agentSpokeSinceLine = true;
  }

  /**
   * Frames of silence before the detector reports: after a person's first words, `MachineDetectionSpeechEndThreshold`
   * (default 1,200 ms, twilio.com/docs/voice/answering-machine-detection); after a machine's beep, a second.
   */
  private amdCountdown = -1;
  private amdVerdict: "first-line-done" | "greeting-done" = "greeting-done";

  nextFrame(streaming: boolean, outboundIdleFrames: number, agentItem: { open: boolean; frames: number } = { open: false, frames: 0 }): Buffer | null {
    if (this.amdCountdown > 0 && (this.amdCountdown -= 1) === 0) this.milestone(this.amdVerdict);
    if (!streaming && !this.speaking) return null;
    if (!this.speaking) {
      if (this.index >= this.lines.length) return null;
      if (this.gapFrames > 0) {
        this.gapFrames -= 1;
        return null;
      }
      const line = this.lines[this.index]!;
      const options: Exclude<CalleeLine, string> = typeof line === "string" ? { clip: line } : line;
      const machine = this.scenario.kind === "machine";
      const agentDone = this.agentSpokeSinceLine && outboundIdleFrames >= 40 && !agentItem.open;
      // A person who picks up to an agent already greeting listens first; one who speaks over the agent does so
      // `overAgentAfterMs` into its speech; a machine or a screener speaks when its turn comes.
      const myTurn =
        machine ||
        options.atOnce === true ||
        (options.overAgentAfterMs !== undefined ? agentItem.frames * 20 >= options.overAgentAfterMs : this.index === 0 ? !this.agentSpokeSinceLine || agentDone : agentDone);
      if (!myTurn) return null;
      this.speaking = loadClip(clipOfLine(line));
      this.speakingStartedMs = this.mediaMs();
      this.position = 0;
      this.agentSpokeSinceLine = false;
    }
    const frame = Buffer.alloc(FRAME_BYTES, ULAW_SILENCE);
    const take = Math.min(FRAME_BYTES, this.speaking.length - this.position);
    this.speaking.copy(frame, 0, this.position, this.position + take);
    this.position += take;
    if (this.position >= this.speaking.length) {
      this.said(clipOfLine(this.lines[this.index]!), this.speakingStartedMs, this.mediaMs() + FRAME_MS);
      this.speaking = null;
      this.index += 1;
      this.gapFrames = this.scenario.kind === "machine" ? 15 : 0;
      if (this.scenario.kind === "human" && this.index === 1) [this.amdVerdict, this.amdCountdown] = ["first-line-done", 60];
      if (this.scenario.kind === "machine" && this.index === this.lines.length) [this.amdVerdict, this.amdCountdown] = ["greeting-done", 50];
    }
    return frame;
  }
}
