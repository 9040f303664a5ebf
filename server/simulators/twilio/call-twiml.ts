import { ULAW_SILENCE } from "@/server/voice/g711";
import { clipForText, loadClip } from "../voice-clips/clips";
import { CallRecording } from "./call-recording";
import { newSid, one, type DialLeg, type SentCallback } from "./call-types";
import { dtmfAudio, SimRoom } from "./conference";
import { twilioSignature } from "./signing";
import { parseTwiml, type TwimlVerb } from "./twiml";

/**
 * The TwiML a call runs: fetching it from the app (signed, as Twilio requests it) and executing its verbs in turn —
 * `<Connect><Stream>` (call-media.ts), `<Say>`, `<Play>` (digits or hold music), `<Pause>`, `<Dial>` (a conference
 * or a child call bridged with this one), `<Record>`, `<Hangup>` — until the end, a hangup or new TwiML.
 */
export abstract class CallTwiml extends CallRecording {
  readonly said: string[] = [];
  /** Keys played on this call with `<Play digits>` (what a phone menu heard). */
  readonly digitsPlayed: string[] = [];
  /** The parties this call `<Dial>`ed (child calls). */
  readonly dialLegs: DialLeg[] = [];

  protected async execute(initial: TwimlVerb[]): Promise<void> {
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
    let leg: DialLeg | null = null;
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

  protected async fetchTwiml(): Promise<TwimlVerb[]> {
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
}
