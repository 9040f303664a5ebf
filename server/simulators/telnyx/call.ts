import { randomBytes, randomUUID } from "node:crypto";
import { ULAW_SILENCE, ulawChannelsToWav } from "@/server/voice/g711";
import type { CalleeClip, CalleeScenario } from "../voice-script";
import { CalleeVoice, FRAME_BYTES, FRAME_MS, type CalleeMilestone } from "../callee-voice";
import { MediaStream, type StreamOptions } from "./media-stream";
import type { WebhookSender } from "./webhooks";

/**
 * One outbound call placed with Call Control `POST /v2/calls`, run as Telnyx documents it:
 * - https://developers.telnyx.com/api/call-control/dial-call — dialing is asynchronous (`is_alive: false` in the
 *   answer); webhooks `call.initiated`, then `call.answered` or `call.hangup`; `timeout_secs` (default 30) of ringing,
 *   `time_limit_secs` (default 14,400); `record: "record-from-answer"` with `record_channels`; `stream_url` …;
 *   `answering_machine_detection` (`detect`, `detect_beep`, `detect_words`, `greeting_end`, `premium`).
 * - https://developers.telnyx.com/docs/voice/programmable-voice/answering-machine-detection —
 *   `call.machine.detection.ended` (`human`, `machine`, `not_sure`); `call.machine.greeting.ended` (`beep_detected`)
 *   after a machine's greeting when `greeting_end`, `detect_words` or `detect_beep` was asked;
 *   `call.machine.premium.detection.ended` (`human_residence`, `human_business`, `machine`, `silence`,
 *   `fax_detected`, `not_sure`) and `call.machine.premium.greeting.ended` (`beep_detected`) for `premium`.
 * - https://developers.telnyx.com/api/call-control/hangup-call (and the `call.hangup` schema in the API reference):
 *   `hangup_cause` (`normal_clearing`, `user_busy`, `call_rejected`, `timeout`, `time_limit`, `not_found`,
 *   `unspecified`, …), `hangup_source` (`caller`, `callee`, `unknown`), `sip_hangup_cause`.
 * - https://developers.telnyx.com/api/call-control/start-call-record and …/stop-call-record — `call.recording.saved`
 *   with `recording_urls` / `public_recording_urls` (`wav`, `mp3`), `channels`, `recording_started_at`/`ended_at`.
 * - https://developers.telnyx.com/api/call-control/start-call-streaming — `streaming.started` / `streaming.stopped` /
 *   `streaming.failed` webhooks (payload `stream_url`), the socket itself in media-stream.ts.
 * - https://developers.telnyx.com/api/call-control/send-dtmf, …/transfer-call, and the `call.dtmf.received` webhook.
 * Who answers is the dialed number's last digit (server/simulators/voice-script.ts; docs/telnyx-simulator.md).
 */

export type DialParams = Record<string, unknown>;
export type HangupCause = "normal_clearing" | "user_busy" | "call_rejected" | "timeout" | "time_limit" | "not_found" | "unspecified" | "originator_cancel";
/** How long a greeting runs before the detector calls it a machine (Telnyx's `greeting_duration_millis` default). */
const MACHINE_GREETING_MS = 3500;

export type AmdOverride = { standard?: "human" | "machine" | "not_sure"; premium?: "human_residence" | "human_business" | "machine" | "silence" | "fax_detected" | "not_sure" };

export type TelnyxCallEnvironment = {
  speed: number;
  origin: () => string;
  userId: string;
  webhooks: WebhookSender;
  resolvePublicUrl: (url: string) => string;
  log: (message: string) => void;
};

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
  slice(from: number, to: number): Buffer {
    return Buffer.from(this.buffer.subarray(from, Math.min(to, this.length)));
  }
}

export type TelnyxRecording = { id: string; channels: "single" | "dual"; startMs: number; endMs: number | null; startedAt: Date; endedAt: Date | null; available: boolean };

const str = (params: DialParams, key: string): string | null => (typeof params[key] === "string" ? (params[key] as string) : null);

export class TelnyxCall {
  readonly callControlId = `v3:${randomBytes(24).toString("base64url")}`;
  readonly callLegId = randomUUID();
  readonly callSessionId = randomUUID();
  readonly to: string;
  readonly from: string;
  readonly connectionId: string;
  readonly webhookUrl: string | null;
  readonly clientState: string | null;
  readonly amd: string | null;
  state: "dialing" | "ringing" | "answered" | "ended" = "dialing";
  startTime: Date | null = null;
  endTime: Date | null = null;
  hangupCause: HangupCause | null = null;
  hangupSource: "caller" | "callee" | "unknown" | null = null;
  /** Media time since the answer, in ms. */
  mediaMs = 0;
  /** What the simulator did, for tests (`answered`, `stream-open`, `dtmf-sent:1`, `transferred:+1…`, …). */
  readonly events: string[] = [];
  /** Each line the callee said, on the media clock. */
  readonly calleeSpans: Array<{ clip: CalleeClip; startMs: number; endMs: number }> = [];
  readonly recordings: TelnyxRecording[] = [];
  stream: MediaStream | null = null;
  private readonly calleeTrack = new Track();
  private readonly playedTrack = new Track();
  private callee: CalleeVoice | null = null;
  private ticker: NodeJS.Timeout | null = null;
  private tickStartedAt = 0;
  private framesDone = 0;
  private outboundIdleFrames = 0;
  private hangupRequested: (() => void) | null = null;
  private settleFinished: () => void = () => {};
  /** Resolves once the call has ended and its last webhook (hang-up, recording) was delivered. */
  private readonly finished = new Promise<void>((resolve) => (this.settleFinished = resolve));
  private amdReported = false;

  constructor(
    private readonly env: TelnyxCallEnvironment,
    readonly params: DialParams,
    readonly scenario: CalleeScenario,
    private readonly amdOverride: AmdOverride | undefined,
    readonly recordingMissing: boolean,
  ) {
    this.to = str(params, "to") ?? "";
    this.from = str(params, "from") ?? "";
    this.connectionId = str(params, "connection_id") ?? "";
    this.webhookUrl = str(params, "webhook_url");
    this.clientState = str(params, "client_state");
    const amd = str(params, "answering_machine_detection");
    this.amd = amd && amd !== "disabled" ? amd : null;
    if (str(params, "record") === "record-from-answer") this.recordings.push(this.newRecording(str(params, "record_channels") === "dual" ? "dual" : "single"));
    void this.run().catch((error: unknown) => {
      this.env.log(`call ${this.callControlId} crashed: ${error instanceof Error ? error.stack : String(error)}`);
      return this.finish("unspecified", "unknown", "500");
    });
  }

  get isAlive(): boolean {
    return this.state !== "ended";
  }

  done(): Promise<void> {
    return this.finished;
  }

  toJson() {
    return {
      call_control_id: this.callControlId,
      call_leg_id: this.callLegId,
      call_session_id: this.callSessionId,
      is_alive: false,
      record_type: "call",
      ...(this.recordings[0] ? { recording_id: this.recordings[0].id } : {}),
    };
  }

  /** `GET /v2/calls/{id}`: the call's status. */
  statusJson() {
    return {
      ...this.toJson(),
      is_alive: this.isAlive,
      client_state: this.clientState ?? undefined,
      call_duration: Math.ceil(this.mediaMs / 1000),
      ...(this.startTime ? { start_time: this.startTime.toISOString() } : {}),
      ...(this.endTime ? { end_time: this.endTime.toISOString() } : {}),
    };
  }

  private base(): Record<string, unknown> {
    return { call_control_id: this.callControlId, call_leg_id: this.callLegId, call_session_id: this.callSessionId, client_state: this.clientState, connection_id: this.connectionId, from: this.from, to: this.to };
  }

  private webhook(eventType: string, extra: Record<string, unknown> = {}): Promise<void> {
    return this.env.webhooks.send(this.webhookUrl, eventType, { ...this.base(), ...extra });
  }

  private sleepMedia(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => ((this.hangupRequested = null), resolve(true)), Math.max(1, ms / this.env.speed));
      this.hangupRequested = () => (clearTimeout(timer), resolve(false));
    });
  }

  private async run(): Promise<void> {
    await this.webhook("call.initiated", { direction: "outgoing", state: "bridging", start_time: new Date().toISOString() });
    if (!(await this.sleepMedia(800))) return;
    this.state = "ringing";
    const timeoutMs = Number(this.params.timeout_secs ?? 30) * 1000;
    switch (this.scenario.kind) {
      case "busy":
        return (await this.sleepMedia(1500)) ? this.finish("user_busy", "callee", "486") : undefined;
      case "declined":
        return (await this.sleepMedia(2500)) ? this.finish("call_rejected", "callee", "603") : undefined;
      case "failed":
        return (await this.sleepMedia(1000)) ? this.finish("unspecified", "unknown", "503") : undefined;
      case "invalid-number":
        return this.finish("not_found", "unknown", "404");
      case "no-answer":
        return (await this.sleepMedia(timeoutMs)) ? this.finish("timeout", "unknown", "487") : undefined;
      default:
        break;
    }
    if (!(await this.sleepMedia(1200))) return;
    this.state = "answered";
    this.startTime = new Date();
    this.events.push("answered");
    for (const recording of this.recordings) recording.startedAt = new Date();
    this.callee = new CalleeVoice(this.scenario, (kind) => this.onMilestone(kind), () => this.finish("normal_clearing", "callee", "200"), {
      machineDetectedAfterMs: MACHINE_GREETING_MS,
      said: (clip, startMs, endMs) => this.calleeSpans.push({ clip, startMs, endMs }),
      mediaMs: () => this.mediaMs,
    });
    this.startTicker();
    await this.webhook("call.answered", { state: "answered", start_time: this.startTime.toISOString() });
    const streamUrl = str(this.params, "stream_url");
    if (streamUrl) await this.startStream(this.params);
  }

  /** Dial's `stream_*` parameters, or `streaming_start`'s (same names). */
  async startStream(params: DialParams): Promise<void> {
    const url = str(params, "stream_url") ?? "";
    const track = str(params, "stream_track");
    const options: StreamOptions = {
      url,
      track: track === "outbound_track" || track === "both_tracks" ? track : "inbound_track",
      bidirectionalMode: str(params, "stream_bidirectional_mode"),
      callControlId: this.callControlId,
      clientState: str(params, "client_state") ?? this.clientState,
      userId: this.env.userId,
      resolvePublicUrl: this.env.resolvePublicUrl,
    };
    this.stopStream();
    const stream = new MediaStream(options);
    if (!(await stream.open())) {
      this.events.push("stream-failed");
      await this.webhook("streaming.failed", { stream_url: url, failure_reason: "connection_failed", stream_id: stream.streamId, stream_params: { track: options.track } });
      return;
    }
    if (!this.isAlive) return stream.stop();
    this.stream = stream;
    this.events.push("stream-open");
    void stream.closed.then(() => this.streamEnded(stream));
    await this.webhook("streaming.started", { stream_url: url, stream_id: stream.streamId, stream_params: { track: options.track } });
  }

  stopStream(): void {
    this.stream?.stop();
  }

  private streamEnded(stream: MediaStream): void {
    if (this.stream === stream) this.stream = null;
    this.events.push("stream-closed");
    void this.webhook("streaming.stopped", { stream_url: stream.options.url, stream_id: stream.streamId });
  }

  /** `send_dtmf`: keys played to the callee (a phone menu routes on them). */
  sendDtmf(digits: string): void {
    this.events.push(`dtmf-sent:${digits}`);
    this.callee?.pressed(digits);
  }

  /** The callee presses keys: a `call.dtmf.received` webhook and a `dtmf` stream frame per digit. */
  async calleePresses(digits: string): Promise<void> {
    for (const digit of digits) {
      this.stream?.dtmf(digit);
      await this.webhook("call.dtmf.received", { digit });
    }
  }

  /** `transfer`: the callee is handed to `to`; the simulator ends this leg's media and logs the target. */
  transfer(to: string): void {
    this.events.push(`transferred:${to}`);
    this.stopStream();
    void this.webhook("call.bridged", {});
  }

  newRecording(channels: "single" | "dual"): TelnyxRecording {
    return { id: randomUUID(), channels, startMs: this.mediaMs, endMs: null, startedAt: new Date(), endedAt: null, available: !this.recordingMissing };
  }

  get activeRecording(): TelnyxRecording | undefined {
    return this.recordings.find((recording) => recording.endMs === null);
  }

  startRecording(channels: "single" | "dual"): void {
    this.recordings.push(this.newRecording(channels));
  }

  /** Ends the active recording and sends `call.recording.saved`. */
  async stopRecording(): Promise<void> {
    const recording = this.activeRecording;
    if (!recording) return;
    recording.endMs = this.mediaMs;
    recording.endedAt = new Date();
    const url = `${this.env.origin()}/recordings/${recording.id}.wav`;
    await this.webhook("call.recording.saved", {
      channels: recording.channels,
      recording_started_at: recording.startedAt.toISOString(),
      recording_ended_at: recording.endedAt.toISOString(),
      recording_urls: { wav: url, mp3: null },
      public_recording_urls: { wav: url, mp3: null },
    });
  }

  /** A recording as WAV: 16-bit PCM, one channel (a mix) or two (callee, then what was played). */
  recordingWav(recording: TelnyxRecording): Buffer {
    const [from, to] = [recording.startMs * 8, (recording.endMs ?? this.mediaMs) * 8];
    const callee = this.calleeTrack.slice(from, to);
    const played = this.playedTrack.slice(from, to);
    const length = Math.max(callee.length, played.length);
    const [a, b] = [Buffer.alloc(length, ULAW_SILENCE), Buffer.alloc(length, ULAW_SILENCE)];
    callee.copy(a);
    played.copy(b);
    if (recording.channels === "dual") return ulawChannelsToWav([a, b]);
    for (let i = 0; i < length; i += 1) if ((b[i]! & 0x7f) < (a[i]! & 0x7f)) a[i] = b[i]!;
    return ulawChannelsToWav([a]);
  }

  /** `hangup` from the app. */
  hangup(): void {
    this.finish(this.state === "answered" ? "normal_clearing" : "originator_cancel", "caller", this.state === "answered" ? "200" : "487");
  }

  private onMilestone(kind: CalleeMilestone): void {
    const amd = this.amd;
    if (!amd || !this.isAlive) return;
    const premium = amd === "premium";
    if (kind.startsWith("amd:")) return this.onModelledAmd(kind.slice(4));
    if (kind === "greeting-done") {
      if (premium) void this.webhook("call.machine.premium.greeting.ended", { result: "beep_detected" });
      else if (amd !== "detect") void this.webhook("call.machine.greeting.ended", { result: "beep_detected" });
      return;
    }
    if (this.amdReported) return;
    this.amdReported = true;
    if (premium) {
      const result = this.amdOverride?.premium ?? (kind === "machine-detected" ? "machine" : kind === "menu-prompt-done" ? "human_business" : "human_residence");
      void this.webhook("call.machine.premium.detection.ended", { result });
    } else {
      const result = this.amdOverride?.standard ?? (kind === "machine-detected" ? "machine" : kind === "menu-prompt-done" ? "not_sure" : "human");
      void this.webhook("call.machine.detection.ended", { result });
    }
  }

  /**
   * An answer-corpus item's modelled AMD result (Twilio's `AnsweredBy`, answer-corpus/render.ts) in Telnyx's words, at
   * its time: human → `human` (premium `human_residence`); machine_end_beep → `machine`, then the greeting ended with
   * `beep_detected`; machine_end_silence → `machine`, then (greeting_end, detect_words, premium) the greeting ended
   * without a beep (`ended`; premium `no_beep_detected`); fax and unknown → `not_sure` (Telnyx's AMD has no fax result).
   */
  private onModelledAmd(answeredBy: string): void {
    if (this.amdReported) return;
    this.amdReported = true;
    const amd = this.amd!;
    const premium = amd === "premium";
    const machine = answeredBy.startsWith("machine");
    const standard = this.amdOverride?.standard ?? (answeredBy === "human" ? "human" : machine ? "machine" : "not_sure");
    const result = premium ? (this.amdOverride?.premium ?? (answeredBy === "human" ? "human_residence" : machine ? "machine" : "not_sure")) : standard;
    void (async () => {
      await this.webhook(premium ? "call.machine.premium.detection.ended" : "call.machine.detection.ended", { result });
      if (!machine || amd === "detect" || !this.isAlive) return;
      const beep = answeredBy === "machine_end_beep";
      if (premium) await this.webhook("call.machine.premium.greeting.ended", { result: beep ? "beep_detected" : "no_beep_detected" });
      else if (beep || amd !== "detect_beep") await this.webhook("call.machine.greeting.ended", { result: beep ? "beep_detected" : "ended" });
    })();
  }

  private startTicker(): void {
    this.tickStartedAt = performance.now();
    const limitMs = Number(this.params.time_limit_secs ?? 14_400) * 1000;
    this.ticker = setInterval(() => {
      const due = Math.floor(((performance.now() - this.tickStartedAt) * this.env.speed) / FRAME_MS) - this.framesDone;
      for (let i = 0; i < Math.min(due, 200) && this.ticker; i += 1) {
        this.tick();
        if (this.mediaMs >= limitMs) this.finish("time_limit", "unknown", "200");
      }
    }, Math.max(1, Math.floor(FRAME_MS / this.env.speed)));
  }

  /** 20 ms of media: the callee's frame (streamed as `inbound`), then what the app sent (played, `outbound`). */
  private tick(): void {
    const at = this.framesDone * FRAME_BYTES;
    this.framesDone += 1;
    this.mediaMs = this.framesDone * FRAME_MS;
    const stream = this.stream?.isOpen ? this.stream : null;
    // The callee talks when someone listens: the stream, a recording, or the machine detector.
    const listening = stream !== null || this.activeRecording !== undefined || this.amd !== null;
    const inbound = this.callee?.nextFrame(listening, this.outboundIdleFrames, stream?.agentItem ?? { open: false, frames: 0 }) ?? null;
    const frame = inbound ?? Buffer.alloc(FRAME_BYTES, ULAW_SILENCE);
    this.calleeTrack.write(at, frame);
    stream?.sendMedia("inbound", frame, this.mediaMs - FRAME_MS);
    const played = stream?.playFrame() ?? null;
    if (played) {
      this.playedTrack.write(at, played);
      stream?.sendMedia("outbound", played, this.mediaMs - FRAME_MS);
      this.outboundIdleFrames = 0;
      this.callee?.agentSpoke();
    } else {
      this.outboundIdleFrames += 1;
    }
    stream?.flushMarks();
  }

  /** The call ends: the stream stops, `call.hangup`, then `call.recording.saved` for a recording still running. */
  finish(cause: HangupCause, source: "caller" | "callee" | "unknown", sip: string): void {
    if (this.state === "ended") return;
    const wasAnswered = this.state === "answered";
    this.state = "ended";
    this.hangupRequested?.();
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
    this.stopStream();
    this.endTime = new Date();
    this.hangupCause = cause;
    this.hangupSource = source;
    this.events.push(`hangup:${cause}`);
    void (async () => {
      await this.webhook("call.hangup", { state: "hangup", hangup_cause: cause, hangup_source: source, sip_hangup_cause: sip, start_time: (this.startTime ?? this.endTime!).toISOString() });
      if (wasAnswered) await this.stopRecording();
      this.events.push("webhooks-done");
    })().finally(() => this.settleFinished());
  }
}
