import { calleeScenarioFor, type CalleeScenario } from "../voice-script";
import { many, newSid, one, FINAL, type Action, type CallStatus, type CreateCallParams, type SentCallback, type SimCallEnvironment, type SimCallOptions } from "./call-types";
import { twilioSignature } from "./signing";

/**
 * The base of a simulated call (SimCall, call.ts): who is called and how it stands, the media clock it waits on,
 * the instructions that interrupt what runs (REST hangup, new TwiML: `setAction`), and the signed status callbacks
 * it posts to the app. The layers above add the media (call-media.ts), the recording (call-recording.ts), the
 * TwiML verbs (call-twiml.ts) and the call's life from dialing to the end (call.ts).
 */
export abstract class CallCore {
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
  /** What the call did, for tests: played TwiML, stream messages received, errors. */
  readonly events: string[] = [];
  protected pendingAction: Action | null = null;
  protected actionWaiters: Array<() => void> = [];
  private callbackSequence = 0;
  /** Resolves true when this call is answered, false when it ends unanswered. */
  readonly answered: Promise<boolean>;
  protected settleAnswered: (answered: boolean) => void = () => {};

  constructor(
    protected readonly env: SimCallEnvironment,
    readonly params: CreateCallParams,
    protected readonly options: SimCallOptions = {},
  ) {
    this.to = one(params, "To") ?? "";
    this.from = one(params, "From") ?? "";
    this.direction = options.inbound ? "inbound" : options.bridgeRoom ? "outbound-dial" : "outbound-api";
    const callee = env.scenarioFor?.(this.to) ?? calleeScenarioFor(this.to);
    this.scenario = options.inbound ? { kind: "human", lines: options.inbound.lines, recording: "available" } : this.direction === "outbound-api" && env.pickUp ? env.pickUp(this.from, callee) : callee;
    this.answered = new Promise((resolve) => (this.settleAnswered = resolve));
  }

  get isFinal(): boolean {
    return FINAL.includes(this.status);
  }

  protected cancelRequested: CallStatus | null = null;

  protected setAction(action: Action, cancelStatus?: CallStatus) {
    if (this.isFinal) return;
    if (cancelStatus) this.cancelRequested = cancelStatus;
    this.pendingAction = action;
    for (const waiter of this.actionWaiters.splice(0)) waiter();
  }

  private wallMs(mediaMs: number): number {
    return Math.max(1, mediaMs / this.env.speed);
  }

  protected sleepMedia(mediaMs: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, this.wallMs(mediaMs));
      this.actionWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  protected takeAction(): Action | null {
    const action = this.pendingAction;
    this.pendingAction = null;
    return action;
  }

  protected timeLimitReached(): boolean {
    const limit = Number(one(this.params, "TimeLimit") ?? 14_400);
    return this.mediaMs >= limit * 1000;
  }

  /** Waits media time, or until an action (hangup, new TwiML) arrives. */
  protected async waitMedia(ms: number): Promise<void> {
    const until = this.mediaMs + ms;
    while (this.mediaMs < until && !this.pendingAction && !this.timeLimitReached()) await this.sleepMedia(Math.min(100, until - this.mediaMs));
  }

  protected baseParams(extra: Record<string, string>): Record<string, string> {
    return { AccountSid: this.env.accountSid, CallSid: this.sid, From: this.from, To: this.to, ApiVersion: "2010-04-01", ...extra };
  }

  protected async statusCallback(event: "initiated" | "ringing" | "answered" | "completed", extra: Record<string, string> = {}) {
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

  protected async callback(kind: SentCallback["kind"], url: string, params: Record<string, string>) {
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

  /** Ends the call (call.ts): the last status, the stream's `stop`, the final callbacks. */
  protected abstract finish(status: CallStatus, extra?: Record<string, string>): void;
}
