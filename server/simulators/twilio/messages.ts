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
 * - Carrier opt-out: https://help.twilio.com/articles/223134027 (STOP/UNSUBSCRIBE/… from a recipient blocks that
 *   sender → recipient pair with 21610 until START).
 *
 * Outcome of an outbound message by the recipient's last digit (as calls, server/simulators/voice-script.ts): 6 is an
 * invalid number (21211 at create), 3 undelivered (30003 unreachable handset), 7 failed (30008 unknown error), any
 * other delivered.
 */

export type SimMessageStatus = "queued" | "sent" | "delivered" | "undelivered" | "failed" | "received";

export type SimMessage = {
  sid: string;
  accountSid: string;
  to: string;
  from: string;
  body: string;
  direction: "outbound-api" | "outbound-reply" | "inbound";
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
  /** The messaging webhook (SmsUrl) of one of the account's numbers; throws SimNumberNotInServiceError for any other number (numbers.ts). */
  smsUrlOf?: (phoneNumber: string) => string;
};

const E164 = /^\+[1-9]\d{6,14}$/;
const STOP_WORDS = new Set(["STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT"]);
const START_WORDS = new Set(["START", "YES", "UNSTOP"]);

export class SimMessaging {
  readonly messages = new Map<string, SimMessage>();
  readonly callbacks: SentMessageCallback[] = [];
  /** sender|recipient pairs blocked by a STOP (21610 until START). */
  private readonly blocked = new Set<string>();
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly env: MessagesEnvironment) {}

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
      if (this.blocked.has(`${from}|${to}`)) return error(res, 400, 21610, "Attempt to send to unsubscribed recipient");
      const message = this.create({ to, from, body, direction: "outbound-api", statusCallback: form.get("StatusCallback") });
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

  private create(params: { to: string; from: string; body: string; direction: SimMessage["direction"]; statusCallback?: string | null }): SimMessage {
    const now = new Date();
    const message: SimMessage = {
      sid: `SM${randomBytes(16).toString("hex")}`,
      accountSid: this.env.accountSid,
      to: params.to,
      from: params.from,
      body: params.body,
      direction: params.direction,
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
    const digit = message.to.slice(-1);
    if (digit === "3") await this.setStatus(message, "undelivered", 30003);
    else if (digit === "7") await this.setStatus(message, "failed", 30008);
    else await this.setStatus(message, "delivered", null);
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
   * A person texts one of our numbers: the signed webhook to the number's messaging webhook — `url` when the test
   * gives one, else the SmsUrl of the account's number `to` (a number the account does not hold is not in service:
   * SimNumberNotInServiceError, and nothing is sent) — and the TwiML `<Message>` replies of the answer sent back to
   * them. STOP/START words block and unblock the pair as carriers do.
   */
  async receive(params: { from: string; to: string; body: string; url?: string }): Promise<{ message: SimMessage; status: number | null; replies: SimMessage[] }> {
    const url = params.url ?? this.env.smsUrlOf?.(params.to);
    if (!url) throw new Error(`receive: no url given and no account numbers to route ${params.to} by`);
    const message = this.create({ to: params.to, from: params.from, body: params.body, direction: "inbound" });
    const word = params.body.trim().toUpperCase();
    if (STOP_WORDS.has(word)) this.blocked.add(`${params.to}|${params.from}`);
    if (START_WORDS.has(word)) this.blocked.delete(`${params.to}|${params.from}`);
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
    };
    const answer = await this.post("message-inbound", url, form);
    const replies = [...(answer?.body.matchAll(/<Message[^>]*>([\s\S]*?)<\/Message>/g) ?? [])].map((match) =>
      this.create({ to: params.from, from: params.to, body: unescapeXml(match[1] ?? ""), direction: "outbound-reply" }),
    );
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

function unescapeXml(text: string): string {
  return text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, "&");
}
