import { randomBytes } from "node:crypto";
import WebSocket from "ws";
import { ULAW_SILENCE, ulawChannelsToWav } from "@/server/voice/g711";
import { calleeScenarioFor, clipOfLine, type CalleeLine, type CalleeScenario } from "../voice-script";
import { clipForText, loadClip, type VoiceClipId } from "../voice-clips/clips";
import { dtmfAudio, SimRoom, type JoinOptions } from "./conference";
import { twilioSignature } from "./signing";
import { parseTwiml, type TwimlVerb } from "./twiml";

export type CallStatus = "queued" | "initiated" | "ringing" | "in-progress" | "completed" | "busy" | "failed" | "no-answer" | "canceled";
const FINAL: CallStatus[] = ["completed", "busy", "failed", "no-answer", "canceled"];

export type SentCallback = { kind: "status" | "amd" | "recording" | "twiml" | "caller-id-validation"; url: string; params: Record<string, string>; signature: string; status: number | null };

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
  /** A scenario set for this number (a phone menu, a contact who asks for a person, a screener); else the last digit's. */
  scenarioFor?: (to: string) => CalleeScenario | undefined;
  /** Who picks up a call placed from `from` (REST) whose callee alone would be `scenario`: the caller ID's answer rate (answer-rate.ts). */
  pickUp?: (from: string, scenario: CalleeScenario) => CalleeScenario;
  /** Conference rooms by name (the account's conferences). */
  rooms: Map<string, SimRoom>;
  /** Starts the child call of a `<Dial><Number>`/`<Sip>` (registered with the account's calls). */
  startChildCall: (params: CreateCallParams, options: SimCallOptions) => SimCall;
};

export type SimCallOptions = {
  /** A `<Dial>`ed party: on answer it joins this room with the parent instead of fetching TwiML. */
  bridgeRoom?: SimRoom;
  parentSid?: string;
  /** A person calling one of our numbers (runInbound). */
  inbound?: InboundCaller;
};

export type CreateCallParams = Record<string, string | string[]>;

/** A person calling one of our numbers (`SimCall` with `inbound`): what they say, each line after the agent spoke. */
export type InboundCaller = { lines: VoiceClipId[] };

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

/** `tone`: DTMF or hold music, which a listener does not take for the other side speaking. */
type OutboundItem = { kind: "audio"; bytes: Buffer; tone?: boolean } | { kind: "mark"; name: string };
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
  /** Outbound: our number → the callee. Inbound: the caller → our number (Twilio's `From` and `To` of that call). */
  readonly to: string;
  readonly from: string;
  readonly direction: "outbound-api" | "outbound-dial" | "inbound";
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
  /** The room this call talks in (a conference, or a `<Dial>` bridge), and what it hears from the others there. */
  private room: SimRoom | null = null;
  private heard: Buffer[] = [];
  private holdMusic = false;
  private holdPosition = 0;
  /** Keys played on this call with `<Play digits>` (what a phone menu heard). */
  readonly digitsPlayed: string[] = [];
  /**
   * The longest the callee heard nothing at all (media ms) from being put on hold in a conference until someone spoke
   * to them again (a person in the room, or the agent back on the stream): "nobody is left in silence".
   */
  longestSilenceSinceHoldMs = 0;
  private holdWatch: { silentMs: number } | null = null;
  /** The parties this call `<Dial>`ed (child calls). */
  readonly dialLegs: SimCall[] = [];
  /** Resolves true when this call is answered, false when it ends unanswered. */
  readonly answered: Promise<boolean>;
  private settleAnswered: (answered: boolean) => void = () => {};

  constructor(
    private readonly env: SimCallEnvironment,
    readonly params: CreateCallParams,
    private readonly options: SimCallOptions = {},
  ) {
    this.to = one(params, "To") ?? "";
    this.from = one(params, "From") ?? "";
    this.direction = options.inbound ? "inbound" : options.bridgeRoom ? "outbound-dial" : "outbound-api";
    const callee = env.scenarioFor?.(this.to) ?? calleeScenarioFor(this.to);
    this.scenario = options.inbound ? { kind: "human", lines: options.inbound.lines, recording: "available" } : this.direction === "outbound-api" && env.pickUp ? env.pickUp(this.from, callee) : callee;
    this.answered = new Promise((resolve) => (this.settleAnswered = resolve));
    this.finished = (options.inbound ? this.runInbound() : this.run()).catch((error: unknown) => {
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
    // A <Record> verb's recording reports to its own callback; the call's (Record=true) to RecordingStatusCallback.
    const url = this.recordedByVerb ? this.recordedByVerb.statusCallback : one(this.params, "RecordingStatusCallback");
    if (!url) return;
    await this.callback("recording", url, {
      AccountSid: this.env.accountSid,
      CallSid: this.sid,
      RecordingSid: this.recordingSid,
      RecordingUrl: `https://api.twilio.com/2010-04-01/Accounts/${this.env.accountSid}/Recordings/${this.recordingSid}`,
      RecordingStatus: "completed",
      RecordingDuration: String(this.recordingDurationSeconds),
      RecordingChannels: one(this.params, "RecordingChannels") === "dual" ? "2" : "1",
      RecordingSource: this.recordedByVerb ? "RecordVerb" : "OutboundAPI",
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
      direction: this.direction,
      parent_call_sid: this.options.parentSid ?? null,
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
    if (one(this.params, "Twiml") === undefined && !one(this.params, "Url") && !this.options.bridgeRoom) throw new Error("no Url or Twiml");
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
      case "declined":
        await this.sleepMedia(2500);
        return this.finish(this.cancelRequested ?? "busy", { SipResponseCode: "603" });
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
    this.answer({});
    this.startTicker();
    await this.statusCallback("answered");
    if (this.options.bridgeRoom) {
      // The dialed party talks with the caller until one of them hangs up.
      await this.joinRoom(this.options.bridgeRoom, { startConferenceOnEnter: true, endConferenceOnExit: true }, false);
      this.finish("completed");
      return;
    }
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

  /**
   * A call to one of our numbers, as Twilio handles it (https://www.twilio.com/docs/usage/webhooks/voice-webhooks):
   * the call rings, Twilio requests the number's voice URL (`Url`, a signed POST with `CallStatus=ringing`,
   * `Direction=inbound`, `From` the caller, `To` our number, `Caller`, `Called`), the TwiML's first verb answers it
   * and the rest runs as for any call; the number's status callback (`StatusCallback`) gets `completed` at the end
   * (https://www.twilio.com/docs/voice/api/incomingphonenumber-resource: only `completed` unless events are chosen).
   * The caller says their lines after the agent has spoken (they called: they wait to be greeted).
   */
  private async runInbound(): Promise<void> {
    this.status = "ringing";
    let verbs: TwimlVerb[];
    try {
      verbs = await this.fetchTwiml();
    } catch (error) {
      this.events.push(`twiml-error: ${error instanceof Error ? error.message : String(error)}`);
      verbs = [{ verb: "Say", text: "An application error has occurred. Goodbye.", voice: null }];
    }
    const first = verbs[0];
    if (first?.verb === "Reject") {
      // Not answered, not billed: the caller hears busy or not-in-service (twilio.com/docs/voice/twiml/reject).
      this.events.push(`verb:Reject:${first.reason}`);
      this.finish(first.reason === "busy" ? "busy" : "no-answer");
      return;
    }
    this.status = "in-progress";
    this.startTime = new Date();
    this.answer({ waitsForAgent: true });
    this.startTicker();
    await this.execute(verbs);
    this.finish("completed");
  }

  /** The call is answered: its party starts (hanging up when its script says so; every line timed on the media clock). */
  private answer(options: { waitsForAgent?: boolean }) {
    this.settleAnswered(true);
    this.callee = new CalleeVoice(
      this.scenario,
      (kind) => this.onCalleeMilestone(kind),
      () => {
        this.events.push("party-hung-up");
        this.setAction({ kind: "hangup" });
      },
      { ...options, said: (clip, startMs, endMs) => this.calleeSpans.push({ clip, startMs, endMs }), mediaMs: () => this.mediaMs },
    );
  }

  private async execute(initial: TwimlVerb[]): Promise<void> {
    let verbs = [...initial];
    while (verbs.length > 0) {
      if (this.timeLimitReached()) return;
      const verb = verbs.shift()!;
      this.events.push(`verb:${verb.verb}`);
      if (verb.verb === "Hangup" || verb.verb === "Reject") return;
      let next: TwimlVerb[] | null = null;
      if (verb.verb === "Connect.Stream") await this.runStream(verb);
      else if (verb.verb === "Say") await this.say(verb.text);
      else if (verb.verb === "Play") await this.play(verb);
      else if (verb.verb === "Dial") next = await this.dial(verb);
      else if (verb.verb === "Record") next = await this.record(verb);
      else await this.waitMedia(verb.seconds * 1000);
      const action = this.takeAction();
      if (action?.kind === "hangup") return;
      if (action?.kind === "redirect") verbs = [...action.verbs];
      else if (next) verbs = next;
    }
  }

  /** `<Play digits>`: the tones go down the line (a phone menu hears the keys once they have played); `<Play>url`: hold music. */
  private async play(verb: Extract<TwimlVerb, { verb: "Play" }>): Promise<void> {
    if (verb.digits) {
      this.digitsPlayed.push(verb.digits);
      this.events.push(`play-digits:${verb.digits}`);
      this.outboundQueue.push({ kind: "audio", bytes: dtmfAudio(verb.digits), tone: true });
    } else {
      for (let i = 0; i < Math.max(1, Math.min(verb.loop || 10, 10)); i += 1) this.outboundQueue.push({ kind: "audio", bytes: loadClip("tone.hold-music"), tone: true });
    }
    while (this.outboundQueue.length > 0 && !this.pendingAction && !this.timeLimitReached()) await this.sleepMedia(40);
    this.outboundQueue = [];
    if (verb.digits && !this.pendingAction) this.callee?.pressed(verb.digits.replace(/w/gi, ""));
  }

  /**
   * `<Dial>` (twilio.com/docs/voice/twiml/dial): a `<Conference>` joins the named room (hold music while it has not
   * started); a number or SIP URI starts a child call (the `callerId` as From, `timeout` as its ring time) whose party
   * is chosen like any callee (voice-script.ts: transfer targets by last digit) and bridges the two when it answers.
   * When the dial ends, `action` gets DialCallStatus, DialCallSid and DialCallDuration and its TwiML replaces the rest.
   */
  private async dial(verb: Extract<TwimlVerb, { verb: "Dial" }>): Promise<TwimlVerb[] | null> {
    let dialStatus = "completed";
    let leg: SimCall | null = null;
    if (verb.target.kind === "conference") {
      const name = verb.target.name;
      const room = this.env.rooms.get(name) ?? new SimRoom(name, (ended) => this.env.rooms.get(ended.name) === ended && this.env.rooms.delete(ended.name));
      this.env.rooms.set(name, room);
      this.events.push(`conference:${name}`);
      await this.joinRoom(room, { startConferenceOnEnter: verb.target.startConferenceOnEnter, endConferenceOnExit: verb.target.endConferenceOnExit }, verb.target.waitUrl !== "");
    } else {
      const room = new SimRoom(`dial:${this.sid}:${this.dialLegs.length}`, () => {});
      leg = this.env.startChildCall(
        {
          To: verb.target.destination,
          From: verb.callerId ?? this.from,
          Timeout: String(verb.timeout),
          ...(verb.timeLimit ? { TimeLimit: String(verb.timeLimit) } : {}),
        },
        { bridgeRoom: room, parentSid: this.sid },
      );
      this.dialLegs.push(leg);
      this.events.push(`dial:${verb.target.destination}`);
      const actionArrived = new Promise<boolean>((resolve) => this.actionWaiters.push(() => resolve(false)));
      const answered = await Promise.race([leg.answered, actionArrived]);
      if (answered && !this.pendingAction) await this.joinRoom(room, { startConferenceOnEnter: true, endConferenceOnExit: true }, false);
      if (!leg.isFinal) leg.update(new URLSearchParams({ Status: "completed" }));
      await leg.done();
      dialStatus = leg.status === "completed" ? "completed" : leg.status;
    }
    if (!verb.action || this.pendingAction || this.isFinal) return null;
    const params = this.baseParams({
      CallStatus: this.status,
      Direction: "outbound-api",
      DialCallStatus: dialStatus,
      ...(leg ? { DialCallSid: leg.sid, DialBridged: String(dialStatus === "completed") } : {}),
      ...(leg && dialStatus === "completed" ? { DialCallDuration: String(leg.durationSeconds) } : {}),
    });
    try {
      return parseTwiml(await this.requestTwiml(verb.action, verb.method, params));
    } catch (error) {
      this.events.push(`twiml-error: ${error instanceof Error ? error.message : String(error)}`);
      return [];
    }
  }

  /** Talks in a room until it ends, this call gets new instructions (or hangs up), or the time limit. */
  private async joinRoom(room: SimRoom, options: JoinOptions, holdMusic: boolean): Promise<void> {
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

  private leaveRoom() {
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
    const params =
      this.direction === "inbound"
        ? this.baseParams({ CallStatus: "ringing", Direction: "inbound", Caller: this.from, Called: this.to, CallerCountry: "US", CalledCountry: "US" })
        : this.baseParams({ CallStatus: "in-progress", Direction: "outbound-api" });
    return parseTwiml(await this.requestTwiml(url, (one(this.params, "Method") ?? "POST").toUpperCase(), params));
  }

  /**
   * Fetches TwiML from the app, signed as Twilio signs it: a POST over the public URL and the posted parameters, a GET
   * over the public URL with the parameters in its query (a number's `VoiceMethod` may be GET).
   */
  private async requestTwiml(url: string, method: string, params: Record<string, string>): Promise<string> {
    const get = method === "GET";
    const target = get ? `${url}${url.includes("?") ? "&" : "?"}${new URLSearchParams(params).toString()}` : url;
    const signature = twilioSignature(this.env.authToken, target, get ? {} : params);
    const entry: SentCallback = { kind: "twiml", url: target, params, signature, status: null };
    this.env.callbacks.push(entry);
    const response = await fetch(this.env.resolvePublicUrl(target), {
      method,
      headers: { "x-twilio-signature": signature, ...(get ? {} : { "content-type": "application/x-www-form-urlencoded" }) },
      ...(get ? {} : { body: new URLSearchParams(params).toString() }),
      signal: AbortSignal.timeout(15_000),
    });
    entry.status = response.status;
    const text = await response.text();
    if (!response.ok) throw new Error(`11200 HTTP retrieval failure: ${response.status}`);
    return text;
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

  /** A `<Record>` ran: the call's recording is reported to this callback when the call ends (null: none asked). */
  private recordedByVerb: { statusCallback: string | null } | null = null;
  /** A `<Record>` is listening now. */
  private recording = false;

  /**
   * `<Record>` (twilio.com/docs/voice/twiml/record): the beep, then the caller's audio until they have been silent for
   * `timeout` seconds after speaking (or `maxLength`); then the `action` URL's TwiML (signed POST with the recording's
   * fields) replaces the document. The recording is the call's (both channels), reported at the end.
   */
  private async record(verb: Extract<TwimlVerb, { verb: "Record" }>): Promise<TwimlVerb[] | null> {
    // The caller is listened to from the beep on; the prompt and the beep are their cue to speak (a person who has
    // just started being listened to otherwise waits to be spoken to, as after hold).
    this.recording = true;
    if (verb.playBeep) {
      this.outboundQueue.push({ kind: "audio", bytes: loadClip("tone.beep") });
      while (this.outboundQueue.length > 0 && !this.pendingAction) await this.sleepMedia(40);
    }
    this.callee?.agentSpoke();
    const startedAt = this.mediaMs;
    let lastSpeechAt = this.mediaMs;
    let spoke = false;
    while (!this.pendingAction && !this.timeLimitReached() && this.mediaMs - startedAt < verb.maxLength * 1000) {
      if (this.callee?.isSpeaking) {
        spoke = true;
        lastSpeechAt = this.mediaMs;
      }
      if ((spoke || this.callee?.finished) && this.mediaMs - lastSpeechAt >= verb.timeout * 1000) break;
      await this.sleepMedia(100);
    }
    this.recording = false;
    this.recordedByVerb = { statusCallback: verb.recordingStatusCallback };
    this.recordingSid ??= newSid("RE");
    if (!verb.action) return null;
    const params = this.baseParams({ CallStatus: this.status, Direction: this.direction, RecordingSid: this.recordingSid, RecordingUrl: `https://api.twilio.com/2010-04-01/Accounts/${this.env.accountSid}/Recordings/${this.recordingSid}`, RecordingDuration: String(Math.ceil((this.mediaMs - startedAt) / 1000)), Digits: "hangup" });
    try {
      return parseTwiml(await this.requestTwiml(verb.action, "POST", params));
    } catch (error) {
      this.events.push(`twiml-error: ${error instanceof Error ? error.message : String(error)}`);
      return [{ verb: "Hangup" }];
    }
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

  private onCalleeMilestone(kind: AmdMilestone) {
    if (!/^DetectMessageEnd|Enable$/.test(one(this.params, "MachineDetection") ?? "") || one(this.params, "AsyncAmd") !== "true") return;
    // A phone menu is neither a person nor a voicemail greeting: Twilio's detector answers `unknown` for many.
    const answeredBy = kind === "greeting-done" ? "machine_end_beep" : kind === "menu-prompt-done" ? "unknown" : "human";
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
        Direction: this.direction,
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
    this.leaveRoom();
    this.settleAnswered(false);
    if (this.ws) {
      this.sendOn(this.ws, { event: "stop", stop: { accountSid: this.env.accountSid, callSid: this.sid }, streamSid: this.streamSid });
      this.ws.close(1000);
      this.ws = null;
    }
    this.status = status;
    this.endTime = new Date();
    this.durationSeconds = this.startTime ? Math.ceil(this.mediaMs / 1000) : 0;
    const recorded = (one(this.params, "Record") === "true" || this.recordedByVerb !== null) && this.startTime !== null;
    void (async () => {
      await this.statusCallback("completed", { CallDuration: String(this.durationSeconds), Duration: String(Math.ceil(this.durationSeconds / 60)), ...extra });
      if (!recorded) return;
      this.recordingSid ??= newSid("RE");
      // A recording stopped during the call has sent its callback already.
      await this.sendRecordingCallback(this.durationSeconds);
    })().finally(() => this.events.push("callbacks-done"));
  }
}

type AmdMilestone = "first-line-done" | "greeting-done" | "menu-prompt-done";

/**
 * The callee's side of the line: its scripted utterances, each said once the other side has spoken and gone quiet (a
 * person waits for their turn); a machine plays its greeting and beep without waiting; a phone menu says its prompt
 * until a key is pressed (`pressed`), then connects to a person, who talks in turn. The callee only talks while
 * someone can hear it (the agent's media stream, or a person it is bridged with).
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
  private lines: CalleeLine[];
  /** Lines before this index are said without waiting for a turn (a greeting, a menu's announcement). */
  private unpromptedUntil = 1;
  /** Phone menu: prompts said, frames until the next one; `connected` once a key led to a person. */
  private menu: { prompts: number; waitFrames: number; connected: boolean } | null;
  private hungUp = false;
  private hangUpCountdown = -1;
  private wasTalking = false;

  constructor(
    private readonly scenario: CalleeScenario,
    private readonly milestone: (kind: AmdMilestone) => void,
    private readonly hangUp: () => void,
    private readonly options: {
      /** A caller (inbound) waits for the agent's greeting before their first line too. */
      waitsForAgent?: boolean;
      /** Each line said, on the media clock (the simulator's record of who spoke when). */
      said?: (clip: VoiceClipId, startMs: number, endMs: number) => void;
      mediaMs?: () => number;
    } = {},
  ) {
    this.lines = scenario.kind === "human" || scenario.kind === "machine" ? [...scenario.lines] : [];
    this.menu = scenario.kind === "menu" ? { prompts: 0, waitFrames: 0, connected: false } : null;
    if (options.waitsForAgent) this.unpromptedUntil = 0;
  }

  streamStarted() {
    this.streaming = true;
  }

  /** Saying a line now. */
  get isSpeaking(): boolean {
    return this.speaking !== null;
  }

  /** Said every line. */
  get finished(): boolean {
    return this.speaking === null && this.index >= this.lines.length;
  }

  streamStopped() {
    this.streaming = false;
  }

  agentSpoke() {
    // What the agent says while the callee is still talking does not count as its reply to the callee's line.
    if (!this.speaking) this.agentSpokeSinceLine = true;
  }

  /** Keys pressed on the line (`<Play digits>`): a phone menu routes on the first one it knows. */
  pressed(digits: string) {
    if (this.scenario.kind !== "menu" || !this.menu || this.menu.connected) return;
    const option = [...digits].map((digit) => (this.scenario as Extract<CalleeScenario, { kind: "menu" }>).options[digit]).find(Boolean);
    if (!option) return;
    this.menu.connected = true;
    this.lines = [option.connecting, ...option.lines];
    this.index = 0;
    // The announcement and the person's first words come unprompted; then the person talks in turn.
    this.unpromptedUntil = 2;
    this.gapFrames = 25;
    this.speaking = null;
  }

  /**
   * Frames of silence before the detector reports: after a person's first words, `MachineDetectionSpeechEndThreshold`
   * (default 1,200 ms, twilio.com/docs/voice/answering-machine-detection); after a machine's beep, a second.
   */
  private amdCountdown = -1;
  private amdVerdict: AmdMilestone = "greeting-done";

  private get replyGapFrames(): number {
    return (this.scenario.kind === "human" ? this.scenario.replyGapFrames : undefined) ?? 40;
  }

  nextFrame(talking: boolean, outboundIdleFrames: number, agentItem: { open: boolean; frames: number } = { open: false, frames: 0 }): Buffer | null {
    if (this.amdCountdown > 0 && (this.amdCountdown -= 1) === 0) this.milestone(this.amdVerdict);
    // Back from hold (or a menu's tones): a person waits to be spoken to before they say their next line.
    if (talking && !this.wasTalking) this.agentSpokeSinceLine = false;
    this.wasTalking = talking;
    if (this.hangUpCountdown > 0 && (this.hangUpCountdown -= 1) === 0 && !this.hungUp) {
      this.hungUp = true;
      this.hangUp();
    }
    if (!talking && !this.speaking) return null;
    if (!this.speaking) {
      if (this.menu && !this.menu.connected) return this.nextMenuFrame();
      if (this.index >= this.lines.length) return null;
      if (this.gapFrames > 0) {
        this.gapFrames -= 1;
        return null;
      }
      const machine = this.scenario.kind === "machine";
      const line = this.lines[this.index]!;
      const options: Exclude<CalleeLine, string> = typeof line === "string" ? { clip: line } : line;
      const agentDone = this.agentSpokeSinceLine && outboundIdleFrames >= this.replyGapFrames && !agentItem.open;
      // A person who picks up to an agent already greeting listens first; one who speaks over the agent does so
      // `overAgentAfterMs` into its speech; a machine or a screener speaks when its turn comes; a menu's announcement
      // and the person it connects to speak unprompted; everyone else waits for the agent to finish.
      const myTurn =
        machine ||
        options.atOnce === true ||
        (options.overAgentAfterMs !== undefined
          ? agentItem.frames * 20 >= options.overAgentAfterMs
          : this.index < this.unpromptedUntil
            ? this.menu?.connected || this.index > 0 || !this.agentSpokeSinceLine || agentDone
            : agentDone);
      if (!myTurn) return null;
      this.speaking = loadClip(clipOfLine(line));
      this.speakingStartedMs = this.options.mediaMs?.() ?? 0;
      this.position = 0;
      this.agentSpokeSinceLine = false;
    }
    return this.speakFrame();
  }

  private nextMenuFrame(): Buffer | null {
    const menu = this.menu!;
    const scenario = this.scenario as Extract<CalleeScenario, { kind: "menu" }>;
    if (menu.waitFrames > 0) {
      menu.waitFrames -= 1;
      return null;
    }
    if (menu.prompts >= 3) {
      // Nobody pressed anything: the menu hangs up, as many do.
      if (!this.hungUp) {
        this.hungUp = true;
        this.hangUp();
      }
      return null;
    }
    menu.prompts += 1;
    menu.waitFrames = Math.round(scenario.repeatAfterMs / FRAME_MS);
    this.speaking = loadClip(scenario.prompt);
    this.position = 0;
    return this.speakFrame();
  }

  private speakFrame(): Buffer {
    const speaking = this.speaking!;
    const frame = Buffer.alloc(FRAME_BYTES, ULAW_SILENCE);
    const take = Math.min(FRAME_BYTES, speaking.length - this.position);
    speaking.copy(frame, 0, this.position, this.position + take);
    this.position += take;
    if (this.position >= speaking.length) {
      if (!this.menu || this.menu.connected) this.options.said?.(clipOfLine(this.lines[this.index]!), this.speakingStartedMs, (this.options.mediaMs?.() ?? 0) + FRAME_MS);
      this.speaking = null;
      if (this.menu && !this.menu.connected) {
        if (this.menu.prompts === 1) [this.amdVerdict, this.amdCountdown] = ["menu-prompt-done", 60];
        return frame;
      }
      this.index += 1;
      this.gapFrames = this.scenario.kind === "machine" ? 15 : this.menu && this.index === 1 ? 100 : 0;
      if (this.scenario.kind === "human" && this.index === 1) [this.amdVerdict, this.amdCountdown] = ["first-line-done", 60];
      if (this.scenario.kind === "machine" && this.index === this.lines.length) [this.amdVerdict, this.amdCountdown] = ["greeting-done", 50];
      if (this.scenario.kind === "human" && this.scenario.hangsUpAfterLastLine && this.index === this.lines.length) this.hangUpCountdown = 50;
    }
    return frame;
  }
}
