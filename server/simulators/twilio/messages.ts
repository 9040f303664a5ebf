import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { countSmsSegments } from "@/server/services/sequences/message-template";
import { calleeScenarioFor } from "../voice-script";
import { json, twilioError as error, rfc2822 } from "./rest";
import { twilioSignature } from "./signing";

/**
 * Programmable Messaging for the Twilio simulator, written from Twilio's documentation:
 * - REST create / fetch / list: https://www.twilio.com/docs/messaging/api/message-resource (form body `To`, `From`,
 *   `Body`, `StatusCallback`; 201 with the Message JSON, `status: "queued"`, `num_segments` as a string; errors 21211
 *   invalid To, 21212 invalid From, 21602 missing Body, 21610 the recipient replied STOP to this sender).
 * - Status callbacks: https://www.twilio.com/docs/messaging/guides/track-outbound-message-status (signed POSTs of
 *   `MessageSid`, `MessageStatus` sent → delivered | undelivered | failed, `ErrorCode` on the last two, `AccountSid`,
 *   `From`, `To`, `ApiVersion`, `SmsSid`, `SmsStatus`).
 * - Incoming messages: https://www.twilio.com/docs/messaging/guides/webhook-request (a signed POST of `MessageSid`,
 *   `SmsSid`, `SmsMessageSid`, `AccountSid`, `From`, `To`, `Body`, `NumMedia`, `NumSegments`, `ApiVersion` to the
 *   number's messaging webhook; a TwiML `<Message>` in the answer is sent back to the sender:
 *   https://www.twilio.com/docs/messaging/twiml/message).
 * - Opt-out keywords, Twilio's default handling on long codes and toll-free numbers:
 *   https://help.twilio.com/articles/223134027 — STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, REVOKE, OPTOUT (the
 *   whole message, any letter case) block the sender → recipient pair, START, YES, UNSTOP lift the block, HELP and INFO
 *   ask for help; Twilio answers each with its own standard reply and still passes the message on to the number's
 *   webhook; while the pair is blocked every message to the recipient is refused with 21610 — a REST create (400) and a
 *   TwiML `<Message>` reply alike (https://www.twilio.com/docs/api/errors/21610). A HELP from a recipient who opted out
 *   gets no reply (https://help.twilio.com/articles/360058144374).
 * - Advanced Opt-Out of a Messaging Service (https://www.twilio.com/docs/messaging/tutorials/advanced-opt-out): the
 *   service's own keywords and replies, and the inbound webhook carries `OptOutType` = STOP, START or HELP for a
 *   keyword it handled (https://help.twilio.com/articles/31560110671259).
 * - Neither (a standalone short code, or opt-out handling turned off for the account): Twilio does not block or answer.
 *   Per number: `setOptOutHandling(number, …)`.
 *
 * Outcome of an outbound message by the recipient's last digit (as calls, server/simulators/voice-script.ts): 6 is an
 * invalid number (21211 at create), 3 undelivered (30003 unreachable handset), 7 failed (30008 unknown error), any
 * other delivered.
 */

export type SimMessageStatus = "queued" | "sent" | "delivered" | "undelivered" | "failed" | "received";

/** How the account answers opt-out keywords texted to one of its numbers (see the top of this file). */
export type SimOptOutHandling =
  | { kind: "default" }
  | { kind: "advanced-opt-out"; keywords?: Partial<Record<SimKeyword, string[]>>; replies?: Partial<Record<SimKeyword, string>> }
  | { kind: "none" };

export type SimKeyword = "STOP" | "START" | "HELP";

/** Twilio's default keywords and standard replies (https://help.twilio.com/articles/223134027). */
export const TWILIO_DEFAULT_KEYWORDS: Record<SimKeyword, string[]> = {
  STOP: ["STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "REVOKE", "OPTOUT"],
  START: ["START", "YES", "UNSTOP"],
  HELP: ["HELP", "INFO"],
};
export const TWILIO_DEFAULT_REPLIES: Record<SimKeyword, string> = {
  STOP: "You have successfully been unsubscribed. You will not receive any more messages from this number. Reply START to resubscribe.",
  START: "You have successfully been re-subscribed to messages from this number. Reply HELP for help. Reply STOP to unsubscribe. Msg&Data Rates May Apply.",
  HELP: "Reply STOP to unsubscribe. Msg&Data Rates May Apply.",
};

export type SimMessage = {
  sid: string;
  accountSid: string;
  to: string;
  from: string;
  body: string;
  direction: "outbound-api" | "outbound-reply" | "inbound";
  /** Who sent an outbound message: the REST API, a TwiML `<Message>` of the webhook's answer, or Twilio's keyword handling. */
  source: "api" | "twiml" | "opt-out-handling" | null;
  status: SimMessageStatus;
  errorCode: number | null;
  numSegments: number;
  statusCallback: string | null;
  createdAt: Date;
  updatedAt: Date;
};

export type SentMessageCallback = { kind: "message-status" | "message-inbound" | "voice-inbound"; url: string; params: Record<string, string>; signature: string; status: number | null; body: string };

export type MessagesEnvironment = {
  accountSid: string;
  authToken: string;
  resolvePublicUrl: (url: string) => string;
  log: (message: string) => void;
  /** Every number's opt-out handling unless setOptOutHandling says otherwise (default: Twilio's default handling). */
  optOutHandling?: SimOptOutHandling;
  /** The messaging webhook (SmsUrl) of one of the account's numbers; throws SimNumberNotInServiceError for any other number (numbers.ts). */
  smsUrlOf?: (phoneNumber: string) => string;
};

const E164 = /^\+[1-9]\d{6,14}$/;

export class SimMessaging {
  readonly messages = new Map<string, SimMessage>();
  readonly callbacks: SentMessageCallback[] = [];
  /** sender|recipient pairs blocked by a STOP (21610 until START). */
  private readonly blocked = new Set<string>();
  private readonly pending = new Set<Promise<unknown>>();
  private readonly optOutHandling = new Map<string, SimOptOutHandling>();

  constructor(private readonly env: MessagesEnvironment) {}

  /** How opt-out keywords texted to `number` (one of ours) are handled from now on. */
  setOptOutHandling(number: string, handling: SimOptOutHandling): void {
    this.optOutHandling.set(number, handling);
  }

  private handlingOf(number: string): SimOptOutHandling {
    return this.optOutHandling.get(number) ?? this.env.optOutHandling ?? { kind: "default" };
  }

  /** The keyword Twilio's handling reads in a message to `number`, and its reply; null when it handles none. */
  private keywordOf(number: string, body: string): { keyword: SimKeyword; reply: string; advanced: boolean } | null {
    const handling = this.handlingOf(number);
    if (handling.kind === "none") return null;
    const word = body.trim().toUpperCase();
    const keywords = handling.kind === "advanced-opt-out" ? { ...TWILIO_DEFAULT_KEYWORDS, ...handling.keywords } : TWILIO_DEFAULT_KEYWORDS;
    const keyword = (Object.keys(keywords) as SimKeyword[]).find((kind) => keywords[kind].some((candidate) => candidate.toUpperCase() === word));
    if (!keyword) return null;
    const replies = handling.kind === "advanced-opt-out" ? { ...TWILIO_DEFAULT_REPLIES, ...handling.replies } : TWILIO_DEFAULT_REPLIES;
    return { keyword, reply: replies[keyword], advanced: handling.kind === "advanced-opt-out" };
  }

  /** Whether `from` → `to` is blocked by the recipient's STOP (every message refused with 21610). */
  isBlocked(from: string, to: string): boolean {
    return this.blocked.has(`${from}|${to}`);
  }

  toJson(message: SimMessage) {
    const uri = `/2010-04-01/Accounts/${message.accountSid}/Messages/${message.sid}.json`;
    return {
      sid: message.sid,
      account_sid: message.accountSid,
      api_version: "2010-04-01",
      body: message.body,
      date_created: rfc2822(message.createdAt),
      date_updated: rfc2822(message.updatedAt),
      date_sent: message.status === "queued" ? null : rfc2822(message.updatedAt),
      direction: message.direction,
      error_code: message.errorCode,
      error_message: null,
      from: message.from,
      to: message.to,
      messaging_service_sid: null,
      num_media: "0",
      num_segments: String(message.numSegments),
      price: null,
      price_unit: "USD",
      status: message.status,
      subresource_uris: { media: uri.replace(".json", "/Media.json") },
      uri,
    };
  }

  /** REST: `POST /Messages.json`, `GET /Messages.json`, `GET /Messages/{Sid}.json`; null when the path is not ours. */
  async handle(req: IncomingMessage, res: ServerResponse, rest: string, readForm: () => Promise<URLSearchParams>, url: URL): Promise<number | null> {
    if (rest === "/Messages.json" && req.method === "POST") {
      const form = await readForm();
      const to = form.get("To") ?? "";
      const from = form.get("From") ?? "";
      const body = form.get("Body") ?? "";
      if (!E164.test(to) || calleeScenarioFor(to).kind === "invalid-number") return error(res, 400, 21211, `The 'To' number ${to} is not a valid phone number.`);
      if (!E164.test(from)) return error(res, 400, 21212, `The 'From' number ${from} is not a valid phone number, shortcode, or alphanumeric sender ID.`);
      if (!body) return error(res, 400, 21602, "Message body is required.");
      if (this.isBlocked(from, to)) return error(res, 400, 21610, "Attempt to send to unsubscribed recipient");
      const message = this.create({ to, from, body, direction: "outbound-api", source: "api", statusCallback: form.get("StatusCallback") });
      this.track(this.deliver(message));
      json(res, 201, this.toJson(message));
      return 201;
    }
    if (rest === "/Messages.json" && req.method === "GET") {
      const to = url.searchParams.get("To");
      const from = url.searchParams.get("From");
      const list = [...this.messages.values()].filter((m) => (!to || m.to === to) && (!from || m.from === from)).map((m) => this.toJson(m));
      json(res, 200, { messages: list, page: 0, page_size: 50, start: 0, end: list.length, next_page_uri: null, previous_page_uri: null, uri: rest });
      return 200;
    }
    const match = rest.match(/^\/Messages\/(SM[0-9a-f]{32})\.json$/);
    if (match && req.method === "GET") {
      const message = this.messages.get(match[1]!);
      if (!message) return error(res, 404, 20404, "The requested resource was not found");
      json(res, 200, this.toJson(message));
      return 200;
    }
    return null;
  }

  private create(params: { to: string; from: string; body: string; direction: SimMessage["direction"]; source: SimMessage["source"]; statusCallback?: string | null }): SimMessage {
    const now = new Date();
    const message: SimMessage = {
      sid: `SM${randomBytes(16).toString("hex")}`,
      accountSid: this.env.accountSid,
      to: params.to,
      from: params.from,
      body: params.body,
      direction: params.direction,
      source: params.source,
      status: params.direction === "inbound" ? "received" : "queued",
      errorCode: null,
      numSegments: Math.max(1, countSmsSegments(params.body).segments),
      statusCallback: params.statusCallback ?? null,
      createdAt: now,
      updatedAt: now,
    };
    this.messages.set(message.sid, message);
    return message;
  }

  /** queued → sent → delivered (or undelivered / failed by the recipient's last digit), each with its status callback. */
  private async deliver(message: SimMessage): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 5));
    await this.setStatus(message, "sent", null);
    const outcome = deliveryOutcome(message.to);
    await this.setStatus(message, outcome.status, outcome.errorCode);
  }

  /**
   * A reply to a person who texted us (Twilio's keyword reply or a TwiML `<Message>`; no status callback): refused with
   * 21610 when the pair is blocked, else delivered (or not) as any message to that number.
   */
  private reply(params: { to: string; from: string; body: string; source: SimMessage["source"]; exempt?: boolean }): SimMessage {
    const message = this.create({ ...params, direction: "outbound-reply" });
    const outcome = !params.exempt && this.isBlocked(params.from, params.to) ? { status: "failed" as const, errorCode: 21610 } : deliveryOutcome(params.to);
    message.status = outcome.status;
    message.errorCode = outcome.errorCode;
    return message;
  }

  private async setStatus(message: SimMessage, status: SimMessageStatus, errorCode: number | null): Promise<void> {
    message.status = status;
    message.errorCode = errorCode;
    message.updatedAt = new Date();
    if (!message.statusCallback) return;
    const params: Record<string, string> = {
      AccountSid: message.accountSid,
      ApiVersion: "2010-04-01",
      From: message.from,
      MessageSid: message.sid,
      MessageStatus: status,
      SmsSid: message.sid,
      SmsStatus: status,
      To: message.to,
      ...(errorCode !== null ? { ErrorCode: String(errorCode) } : {}),
    };
    await this.post("message-status", message.statusCallback, params);
  }

  /**
   * A person texts one of our numbers (`url` when the test gives one, else the SmsUrl of the account's number `to`; a
   * number the account does not hold is not in service: SimNumberNotInServiceError, and nothing is sent): the number's opt-out handling first (a keyword blocks or unblocks the pair and
   * is answered by Twilio), then the signed webhook to `url` (the number's messaging webhook, with `OptOutType` under
   * Advanced Opt-Out), and the TwiML `<Message>` replies of the answer sent back — refused with 21610 to a person who
   * opted out. `replies` is every message sent back to the person, in order, with its status.
   */
  async receive(params: { from: string; to: string; body: string; url?: string }): Promise<{ message: SimMessage; status: number | null; replies: SimMessage[] }> {
    const url = params.url ?? this.env.smsUrlOf?.(params.to);
    if (!url) throw new Error(`receive: no url given and no account numbers to route ${params.to} by`);
    const message = this.create({ to: params.to, from: params.from, body: params.body, direction: "inbound", source: null });
    const replies: SimMessage[] = [];
    const keyword = this.keywordOf(params.to, params.body);
    if (keyword) {
      const pair = `${params.to}|${params.from}`;
      const optedOutBefore = this.blocked.has(pair);
      if (keyword.keyword === "STOP") this.blocked.add(pair);
      if (keyword.keyword === "START") this.blocked.delete(pair);
      // The STOP and START confirmations always go out; a HELP from a person who opted out gets none.
      if (!(keyword.keyword === "HELP" && optedOutBefore)) replies.push(this.reply({ to: params.from, from: params.to, body: keyword.reply, source: "opt-out-handling", exempt: true }));
    }
    const form: Record<string, string> = {
      AccountSid: this.env.accountSid,
      ApiVersion: "2010-04-01",
      Body: params.body,
      From: params.from,
      MessageSid: message.sid,
      NumMedia: "0",
      NumSegments: String(message.numSegments),
      SmsMessageSid: message.sid,
      SmsSid: message.sid,
      SmsStatus: "received",
      To: params.to,
      ...(keyword?.advanced ? { OptOutType: keyword.keyword } : {}),
    };
    const answer = await this.post("message-inbound", url, form);
    for (const match of answer?.body.matchAll(/<Message[^>]*>([\s\S]*?)<\/Message>/g) ?? []) {
      replies.push(this.reply({ to: params.from, from: params.to, body: unescapeXml(match[1] ?? ""), source: "twiml" }));
    }
    return { message, status: answer?.status ?? null, replies };
  }

  /** Signs and posts a webhook (the public URL is signed; the request goes where resolvePublicUrl says). */
  async post(kind: SentMessageCallback["kind"], url: string, params: Record<string, string>): Promise<SentMessageCallback | null> {
    const signature = twilioSignature(this.env.authToken, url, params);
    const entry: SentMessageCallback = { kind, url, params, signature, status: null, body: "" };
    this.callbacks.push(entry);
    try {
      const response = await fetch(this.env.resolvePublicUrl(url), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": signature },
        body: new URLSearchParams(params).toString(),
        signal: AbortSignal.timeout(15_000),
      });
      entry.status = response.status;
      entry.body = await response.text();
      return entry;
    } catch (error) {
      this.env.log(`${kind} webhook to ${url} failed: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    }
  }

  private track(promise: Promise<unknown>) {
    const tracked = promise.catch((error: unknown) => this.env.log(`message delivery failed: ${String(error)}`)).finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  /** Resolves when every message's callbacks have been sent. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}

/** What becomes of a message to `to`, by its last digit: 3 undelivered (30003), 7 failed (30008), else delivered. */
function deliveryOutcome(to: string): { status: "delivered" | "undelivered" | "failed"; errorCode: number | null } {
  const digit = to.slice(-1);
  if (digit === "3") return { status: "undelivered", errorCode: 30003 };
  if (digit === "7") return { status: "failed", errorCode: 30008 };
  return { status: "delivered", errorCode: null };
}

function unescapeXml(text: string): string {
  return text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, "&");
}
