import { CallTwiml } from "./call-twiml";
import { newSid, one, type CallStatus, type CreateCallParams, type SimCallEnvironment, type SimCallOptions } from "./call-types";
import { CalleeVoice, type CalleeMilestone } from "../callee-voice";
import { parseTwiml, type TwimlVerb } from "./twiml";

export { newSid, type CallStatus, type CreateCallParams, type InboundCaller, type SentCallback, type SimCallEnvironment, type SimCallOptions } from "./call-types";

/**
 * One call as Twilio runs it: ringing, the outcome of the dialed number's last digit (voice-script.ts), the TwiML
 * fetched at answer and executed (`<Connect><Stream>` as a Media Streams client, `<Say>`, `<Pause>`, `<Hangup>`),
 * asynchronous answering-machine detection, signed status / AMD / recording callbacks, and a dual-channel
 * recording of both directions on one media clock (channel 1: the callee, channel 2: what we played).
 */
export class SimCall extends CallTwiml {
  private finished: Promise<void>;

  constructor(env: SimCallEnvironment, params: CreateCallParams, options: SimCallOptions = {}) {
    super(env, params, options);
    this.finished = (options.inbound ? this.runInbound() : this.run()).catch((error: unknown) => {
      this.env.log(`call ${this.sid} crashed: ${error instanceof Error ? error.stack : String(error)}`);
      this.finish("failed");
    });
  }

  done(): Promise<void> {
    return this.finished;
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

  private onCalleeMilestone(kind: CalleeMilestone) {
    if (!/^DetectMessageEnd|Enable$/.test(one(this.params, "MachineDetection") ?? "") || one(this.params, "AsyncAmd") !== "true") return;
    // A phone menu is neither a person nor a voicemail greeting: Twilio's detector answers `unknown` for many.
    // An answer-corpus item says what its AMD is modelled to (`amd:<AnsweredBy>`, answer-corpus/render.ts).
    const answeredBy = kind.startsWith("amd:") ? kind.slice(4) : kind === "greeting-done" ? "machine_end_beep" : kind === "menu-prompt-done" ? "unknown" : "human";
    this.answeredBy = answeredBy;
    const url = one(this.params, "AsyncAmdStatusCallback");
    if (url) void this.callback("amd", url, this.baseParams({ AnsweredBy: answeredBy, MachineDetectionDuration: String(this.mediaMs) }));
  }

  private finishing = false;

  protected finish(status: CallStatus, extra: Record<string, string> = {}) {
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
