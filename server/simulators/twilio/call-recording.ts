import { ULAW_SILENCE, ulawChannelsToWav } from "@/server/voice/g711";
import { CallMedia } from "./call-media";
import { one } from "./call-types";

/**
 * A call's recording (`Record=true`, or a `<Record>` verb): the WAV Twilio serves (dual channel or mixed, paused
 * spans silent, cut where it was stopped), the Recording API's pause / resume / stop and its JSON, and the signed
 * recording status callback.
 */
export abstract class CallRecording extends CallMedia {
  recordingSid: string | null = null;
  recordingAvailable = false;
  recordingDurationSeconds = 0;
  /** Recording API: where the recording was stopped (media ms; nothing after it is kept), paused spans, deletion. */
  recordingStoppedAtMs: number | null = null;
  readonly recordingPauses: Array<{ fromMs: number; toMs: number | null }> = [];
  recordingDeleted = false;
  private recordingCallbackSent = false;
  /** A `<Record>` ran: the call's recording is reported to this callback when the call ends (null: none asked). */
  protected recordedByVerb: { statusCallback: string | null } | null = null;

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

  protected async sendRecordingCallback(durationSeconds: number): Promise<void> {
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
}
