import { randomBytes, randomInt } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { SentCallback } from "./call";
import { isCallbackUrl, json, listPage, noContent, notFound, rfc2822, twilioError } from "./rest";
import { twilioSignature } from "./signing";

/**
 * Verified caller IDs of the simulated account, written from Twilio's documentation:
 * - https://www.twilio.com/docs/voice/api/outgoing-caller-id — `POST OutgoingCallerIds.json` (the ValidationRequest:
 *   `PhoneNumber`, `FriendlyName`, `CallDelay` 0–60 s, `Extension`, `StatusCallback`, `StatusCallbackMethod`) → 201
 *   `{account_sid, call_sid, friendly_name, phone_number, validation_code}` with a six-digit code; then
 *   `GET OutgoingCallerIds.json` (`PhoneNumber`, `FriendlyName`), `GET`/`POST` (FriendlyName)/`DELETE
 *   OutgoingCallerIds/{PN}.json`.
 * - https://www.twilio.com/docs/voice/api/verifying-caller-ids-scale — Twilio calls the number; whoever answers keys in
 *   the code; then one status callback request carries the result: the call's parameters (`AccountSid`, `CallSid`,
 *   `CallStatus`, `From`, `To`, `Called`, `Caller`, `Direction`, `ApiVersion`) with `VerificationStatus` `success` or
 *   `failed`, and `OutgoingCallerIdSid` on success; signed with X-Twilio-Signature like every Twilio request.
 * - Errors: https://www.twilio.com/docs/errors/21450 (phone number already validated on your account), /21217 (not a
 *   valid phone number), /21456 (invalid callback URL for the validation), /20404.
 * The callee keys the code in unless the test said otherwise (`setCallerIdValidation`): `wrong-code` keys another
 * one, `no-answer` lets it ring out. Times are media time (the simulator's `speed`): the call starts after
 * `CallDelay`, rings 2 s, and the code is keyed 4 s after the answer; an unanswered call rings 30 s.
 */

export type CallerIdValidationOutcome = "enters-code" | "wrong-code" | "no-answer";

export type SimCallerId = { sid: string; phoneNumber: string; friendlyName: string; createdAt: Date; updatedAt: Date };

export type SimCallerIdValidation = {
  callSid: string;
  phoneNumber: string;
  friendlyName: string;
  validationCode: string;
  callDelaySeconds: number;
  extension: string | null;
  statusCallback: string | null;
  statusCallbackMethod: "GET" | "POST";
  outcome: CallerIdValidationOutcome;
  status: "calling" | "success" | "failed";
  callerIdSid: string | null;
};

export type CallerIdsEnvironment = {
  accountSid: string;
  authToken: string;
  speed: number;
  resolvePublicUrl: (url: string) => string;
  log: (message: string) => void;
  /** The account's callback log (the validation's status callback is one more, kind `caller-id-validation`). */
  callbacks: SentCallback[];
};

const E164 = /^\+[1-9]\d{6,14}$/;
/** The number Twilio's validation calls come from (a fictional one). */
export const VALIDATION_CALLER = "+18005550199";
const RING_MS = 2000;
const KEYING_MS = 4000;
const RING_OUT_MS = 30_000;

export class SimCallerIds {
  /** Verified caller IDs by SID (`PN…`). */
  readonly callerIds = new Map<string, SimCallerId>();
  /** Every validation request, in order, with its code and result. */
  readonly validations: SimCallerIdValidation[] = [];
  private readonly outcomes = new Map<string, CallerIdValidationOutcome>();
  private readonly pending = new Set<Promise<void>>();
  private readonly timers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  private stopped = false;

  constructor(private readonly env: CallerIdsEnvironment) {}

  private get base(): string {
    return `/2010-04-01/Accounts/${this.env.accountSid}`;
  }

  /** What the person who answers a validation call to `phoneNumber` does from now on (default `enters-code`). */
  setOutcome(phoneNumber: string, outcome: CallerIdValidationOutcome): void {
    this.outcomes.set(phoneNumber, outcome);
  }

  find(phoneNumber: string): SimCallerId | undefined {
    return [...this.callerIds.values()].find((callerId) => callerId.phoneNumber === phoneNumber);
  }

  /** REST: OutgoingCallerIds (the validation request and the verified caller IDs); null when the path is not theirs. */
  async handle(req: IncomingMessage, res: ServerResponse, rest: string, readForm: () => Promise<URLSearchParams>, url: URL): Promise<number | null> {
    if (rest === "/OutgoingCallerIds.json" && req.method === "POST") return this.requestValidation(res, await readForm());
    if (rest === "/OutgoingCallerIds.json" && req.method === "GET") {
      const phoneNumber = url.searchParams.get("PhoneNumber");
      const friendlyName = url.searchParams.get("FriendlyName");
      const list = [...this.callerIds.values()].filter((callerId) => (!phoneNumber || callerId.phoneNumber === phoneNumber) && (!friendlyName || callerId.friendlyName === friendlyName));
      return json(res, 200, listPage(url, `${this.base}/OutgoingCallerIds.json`, "outgoing_caller_ids", list.map((callerId) => this.toJson(callerId))));
    }
    const one = rest.match(/^\/OutgoingCallerIds\/(PN[0-9a-f]{32})\.json$/);
    if (!one) return null;
    const callerId = this.callerIds.get(one[1]!);
    if (!callerId) return notFound(res);
    if (req.method === "DELETE") {
      this.callerIds.delete(callerId.sid);
      return noContent(res);
    }
    if (req.method === "POST") {
      const friendlyName = (await readForm()).get("FriendlyName");
      if (friendlyName) callerId.friendlyName = friendlyName.slice(0, 64);
      callerId.updatedAt = new Date();
    }
    return req.method === "GET" || req.method === "POST" ? json(res, 200, this.toJson(callerId)) : null;
  }

  private requestValidation(res: ServerResponse, form: URLSearchParams): number {
    const phoneNumber = form.get("PhoneNumber") ?? "";
    if (!E164.test(phoneNumber)) return twilioError(res, 400, 21217, `Phone number ${phoneNumber} does not appear to be valid`);
    if (this.find(phoneNumber)) return twilioError(res, 400, 21450, "Phone number already validated on your account");
    const statusCallback = form.get("StatusCallback") || null;
    if (statusCallback && !isCallbackUrl(statusCallback)) return twilioError(res, 400, 21456, `Invalid CallbackUrl: ${statusCallback}`);
    const method = (form.get("StatusCallbackMethod") || "POST").toUpperCase();
    if (method !== "GET" && method !== "POST") return twilioError(res, 400, 20001, `StatusCallbackMethod must be GET or POST, not ${method}`);
    const delay = form.get("CallDelay") ?? "0";
    if (!/^\d{1,2}$/.test(delay) || Number(delay) > 60) return twilioError(res, 400, 20001, `CallDelay must be a whole number of seconds from 0 to 60, not ${delay}`);
    const validation: SimCallerIdValidation = {
      callSid: `CA${randomBytes(16).toString("hex")}`,
      phoneNumber,
      friendlyName: (form.get("FriendlyName") || phoneNumber).slice(0, 64),
      validationCode: String(randomInt(0, 1_000_000)).padStart(6, "0"),
      callDelaySeconds: Number(delay),
      extension: form.get("Extension") || null,
      statusCallback,
      statusCallbackMethod: method,
      outcome: this.outcomes.get(phoneNumber) ?? "enters-code",
      status: "calling",
      callerIdSid: null,
    };
    this.validations.push(validation);
    this.track(this.call(validation));
    return json(res, 201, { account_sid: this.env.accountSid, call_sid: validation.callSid, friendly_name: validation.friendlyName, phone_number: phoneNumber, validation_code: validation.validationCode });
  }

  /** The validation call: delay, ringing, the code keyed in (or not), the caller ID created, the signed callback. */
  private async call(validation: SimCallerIdValidation): Promise<void> {
    await this.sleepMedia(validation.callDelaySeconds * 1000 + RING_MS);
    const answered = validation.outcome !== "no-answer";
    await this.sleepMedia(answered ? KEYING_MS : RING_OUT_MS - RING_MS);
    if (this.stopped) return;
    // A caller ID verified meanwhile (another request for the same number) makes this one moot, as the 21450 check.
    const verified = validation.outcome === "enters-code" && !this.find(validation.phoneNumber);
    validation.status = verified ? "success" : "failed";
    if (verified) {
      const now = new Date();
      const callerId: SimCallerId = { sid: `PN${randomBytes(16).toString("hex")}`, phoneNumber: validation.phoneNumber, friendlyName: validation.friendlyName, createdAt: now, updatedAt: now };
      this.callerIds.set(callerId.sid, callerId);
      validation.callerIdSid = callerId.sid;
    }
    if (!validation.statusCallback) return;
    await this.send(validation.statusCallback, validation.statusCallbackMethod, {
      AccountSid: this.env.accountSid,
      ApiVersion: "2010-04-01",
      CallSid: validation.callSid,
      CallStatus: answered ? "completed" : "no-answer",
      Called: validation.phoneNumber,
      Caller: VALIDATION_CALLER,
      Direction: "outbound-api",
      From: VALIDATION_CALLER,
      To: validation.phoneNumber,
      VerificationStatus: validation.status,
      ...(validation.callerIdSid ? { OutgoingCallerIdSid: validation.callerIdSid } : {}),
    });
  }

  /** Twilio signs a GET over the URL with its query and no body parameters, a POST over the URL and the form. */
  private async send(url: string, method: "GET" | "POST", params: Record<string, string>): Promise<void> {
    const target = method === "GET" ? `${url}${url.includes("?") ? "&" : "?"}${new URLSearchParams(params).toString()}` : url;
    const signature = method === "GET" ? twilioSignature(this.env.authToken, target, {}) : twilioSignature(this.env.authToken, url, params);
    const entry: SentCallback = { kind: "caller-id-validation", url: target, params, signature, status: null };
    this.env.callbacks.push(entry);
    try {
      const response = await fetch(this.env.resolvePublicUrl(target), {
        method,
        headers: { "x-twilio-signature": signature, ...(method === "POST" ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
        ...(method === "POST" ? { body: new URLSearchParams(params).toString() } : {}),
        signal: AbortSignal.timeout(15_000),
      });
      entry.status = response.status;
      await response.arrayBuffer();
    } catch (error) {
      this.env.log(`caller-id validation callback to ${url} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private sleepMedia(mediaMs: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const entry = { timer: setTimeout(() => (this.timers.delete(entry), resolve()), Math.max(1, mediaMs / this.env.speed)), resolve };
      this.timers.add(entry);
    });
  }

  private track(promise: Promise<void>) {
    const tracked = promise.catch((error: unknown) => this.env.log(`caller-id validation failed: ${String(error)}`)).finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  /** Resolves when every validation call has ended and sent its callback. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /** The simulator stops: calls in progress end without a callback. */
  stop(): void {
    this.stopped = true;
    for (const entry of this.timers) {
      clearTimeout(entry.timer);
      entry.resolve();
    }
    this.timers.clear();
  }

  toJson(callerId: SimCallerId) {
    return {
      account_sid: this.env.accountSid,
      date_created: rfc2822(callerId.createdAt),
      date_updated: rfc2822(callerId.updatedAt),
      friendly_name: callerId.friendlyName,
      phone_number: callerId.phoneNumber,
      sid: callerId.sid,
      uri: `${this.base}/OutgoingCallerIds/${callerId.sid}.json`,
    };
  }
}
