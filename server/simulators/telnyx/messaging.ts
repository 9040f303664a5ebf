import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import { about, E164, ERRORS, isCallbackUrl, json, str, telnyxError } from "./rest";
import type { WebhookSender } from "./webhooks";

/**
 * Messaging for the Telnyx simulator, written from Telnyx's documentation:
 * - https://developers.telnyx.com/api/messaging/send-message — `POST /v2/messages` with `from`, `to`, `text`
 *   (`webhook_url`, `webhook_failover_url`, `messaging_profile_id` optional) → 200 `{data: {record_type: "message",
 *   direction: "outbound", id, type, from: {phone_number, carrier, line_type}, to: [{phone_number, status: "queued",
 *   carrier, line_type}], text, parts, encoding, webhook_url, errors: [], …}}`.
 * - https://developers.telnyx.com/docs/messaging/messages/receiving-webhooks — `message.sent` (to[].status `sent`),
 *   then `message.finalized` (`delivered`, `delivery_failed`, `sending_failed`, `delivery_unconfirmed`), the message as
 *   the payload, `errors` filled on failure.
 * - https://developers.telnyx.com/docs/messaging/messages/message-detail-records/error-codes — 40008 Undeliverable,
 *   40006 Recipient server unavailable, 40310 Invalid 'to' address.
 * - the same page's inbound message: `message.received`, the payload `{record_type: "message", direction: "inbound", id,
 *   type: "SMS", from: {phone_number, carrier, line_type}, to: [{phone_number, status: "webhook_delivered"}], text, …}`
 *   sent to the number's Messaging Profile webhook (`receive` below: the test says where).
 * Outcome by the recipient's last digit, as the Twilio simulator's messages: 6 is refused at once (422, 40310), 3 ends
 * `delivery_failed` (40008), 7 `sending_failed` (40006), any other digit `delivered`.
 */

export type TelnyxMessage = { id: string; from: string; to: string; text: string; webhookUrl: string | null; status: string; errors: Array<{ code: string; title: string; detail: string }>; createdAt: Date };

const OUTCOMES: Record<string, { status: string; error: { code: string; title: string; detail: string } }> = {
  "3": { status: "delivery_failed", error: { code: "40008", title: "Undeliverable", detail: "The message could not be delivered to the handset." } },
  "7": { status: "sending_failed", error: { code: "40006", title: "Recipient server unavailable", detail: "The carrier of the recipient could not be reached." } },
};

function segments(text: string): { encoding: "GSM-7" | "UCS-2"; parts: number } {
  // eslint-disable-next-line no-control-regex -- the GSM-7 test is about ASCII, control characters included
  const gsm = /^[\x0a\x0d\x20-\x7e£¥èéùìòÇØøÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ¤¡ÄÖÑÜ§¿äöñüà]*$/.test(text);
  const [single, multi] = gsm ? [160, 153] : [70, 67];
  return { encoding: gsm ? "GSM-7" : "UCS-2", parts: text.length <= single ? 1 : Math.ceil(text.length / multi) };
}

export class TelnyxMessaging {
  readonly messages = new Map<string, TelnyxMessage>();

  constructor(
    private readonly webhooks: WebhookSender,
    private readonly speed: number,
  ) {}

  toJson(message: TelnyxMessage) {
    const { encoding, parts } = segments(message.text);
    return {
      record_type: "message",
      direction: "outbound",
      id: message.id,
      type: "SMS",
      from: { phone_number: message.from, carrier: "Telnyx", line_type: "Wireless" },
      to: [{ phone_number: message.to, status: message.status, carrier: "Simulated Wireless", line_type: "Wireless" }],
      text: message.text,
      media: [],
      encoding,
      parts,
      webhook_url: message.webhookUrl,
      received_at: message.createdAt.toISOString(),
      errors: message.errors,
    };
  }

  /** `POST /v2/messages`. */
  send(res: ServerResponse, body: Record<string, unknown>): number {
    const from = str(body, "from");
    const to = str(body, "to");
    const text = str(body, "text");
    const webhookUrl = str(body, "webhook_url") ?? null;
    if (!from || !E164.test(from)) return telnyxError(res, 422, about(ERRORS.e164, "from"));
    if (!to || !E164.test(to)) return telnyxError(res, 422, about(ERRORS.e164, "to"));
    if (to.endsWith("6")) return telnyxError(res, 422, { code: "40310", title: "Invalid 'to' address", detail: `The 'to' address ${to} is not a valid destination.`, source: { pointer: "/to" } });
    if (!text) return telnyxError(res, 422, about(ERRORS.missing, "text", "The 'text' parameter is required for an SMS."));
    if (webhookUrl && !isCallbackUrl(webhookUrl)) return telnyxError(res, 422, about({ code: "10003", title: "Invalid URL", detail: "The URL provided was invalid, malformed, or too long." }, "webhook_url"));
    const message: TelnyxMessage = { id: randomUUID(), from, to, text, webhookUrl, status: "queued", errors: [], createdAt: new Date() };
    this.messages.set(message.id, message);
    void this.deliver(message);
    return json(res, 200, { data: this.toJson(message) });
  }

  /** A person texts one of the account's numbers: `message.received` to `url` (its Messaging Profile's webhook). */
  async receive(params: { from: string; to: string; text: string; url: string }): Promise<{ id: string }> {
    const id = randomUUID();
    const { encoding, parts } = segments(params.text);
    await this.webhooks.send(params.url, "message.received", {
      record_type: "message",
      direction: "inbound",
      id,
      type: "SMS",
      from: { phone_number: params.from, carrier: "Simulated Wireless", line_type: "Wireless" },
      to: [{ phone_number: params.to, status: "webhook_delivered", carrier: "Telnyx", line_type: "Wireless" }],
      text: params.text,
      media: [],
      encoding,
      parts,
      received_at: new Date().toISOString(),
      errors: [],
    });
    return { id };
  }

  private async deliver(message: TelnyxMessage): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, Math.max(1, 500 / this.speed)));
    message.status = "sent";
    await this.webhooks.send(message.webhookUrl, "message.sent", this.toJson(message));
    await new Promise((resolve) => setTimeout(resolve, Math.max(1, 1500 / this.speed)));
    const outcome = OUTCOMES[message.to.slice(-1)];
    message.status = outcome?.status ?? "delivered";
    if (outcome) message.errors = [outcome.error];
    await this.webhooks.send(message.webhookUrl, "message.finalized", this.toJson(message));
  }
}
