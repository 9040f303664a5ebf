import { z } from "zod";
import type { Db } from "@/db";
import { parseQuery, queryRefusalResponse } from "@/server/http/query-params";
import { getLogger } from "@/server/observability/logger";
import { idText } from "@/server/schemas/text";
import { applySmsStatusCallback, receiveSms } from "./receive-sms";
import { twilioHookOf } from "@/server/voice/twilio-realtime/settings";
import { isSignedTwilioWebhook, type Messaging } from "./twilio-messaging";

/** The query of the status callback URL we give Twilio with each SMS. */
export const ZSmsStatusQuerySchema = z.object({ messageId: idText() });

export type TwilioWebhookDeps = { db: Db; now: () => Date; messaging: () => Promise<Messaging> };

const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");
}

export function messageTwiml(reply: string | null): string {
  return reply ? `<?xml version="1.0" encoding="UTF-8"?><Response><Message>${escapeXml(reply)}</Message></Response>` : EMPTY_TWIML;
}

function twiml(xml: string): Response {
  return new Response(xml, { status: 200, headers: { "content-type": "text/xml" } });
}

/** Reads a Twilio webhook and checks its signature; null when it is unsigned or tampered (the caller answers 403). */
export async function readSignedTwilioForm(request: Request, messaging: Messaging): Promise<Record<string, string> | null> {
  const url = new URL(request.url);
  const text = (await request.text()).slice(0, 64_000);
  const form = Object.fromEntries(new URLSearchParams(text));
  const signed = isSignedTwilioWebhook(messaging.settings, { pathAndQuery: url.pathname + url.search, signature: request.headers.get("x-twilio-signature"), form });
  return signed ? form : null;
}

/**
 * `POST /api/carriers/twilio/messages/status?messageId=…` (an SMS's delivery status) and `POST …/messages/inbound`
 * (an SMS to one of our numbers; the answer's TwiML `<Message>` is our reply to a keyword Twilio did not answer); the
 * older /api/twilio/messages/… alike. Trust
 * boundary: nothing of an unsigned or tampered request is read or stored (403); a signed one's query is still checked
 * (400 `{error, message}`, server/http/query-params.ts).
 */
export async function handleTwilioMessagingWebhook(request: Request, deps: TwilioWebhookDeps): Promise<Response> {
  const hook = twilioHookOf(new URL(request.url).pathname, "messages");
  if (request.method !== "POST" || (hook !== "status" && hook !== "inbound")) return new Response("Not found", { status: 404 });
  const messaging = await deps.messaging();
  const form = await readSignedTwilioForm(request, messaging);
  if (!form) return new Response("Invalid Twilio signature", { status: 403 });
  if (hook === "status") {
    const parsed = parseQuery(ZSmsStatusQuerySchema, new URL(request.url));
    if (!parsed.ok) return queryRefusalResponse(parsed.refusal);
    const { messageId } = parsed.query;
    const outcome = await applySmsStatusCallback(deps.db, {
      messageId,
      messageSid: form.MessageSid ?? form.SmsSid ?? "",
      status: form.MessageStatus ?? form.SmsStatus ?? "",
      errorCode: form.ErrorCode ?? null,
      now: deps.now(),
    });
    if (outcome === "ignored") getLogger("sequence-messages").debug({ messageId, status: form.MessageStatus }, "SMS status callback ignored");
    return twiml(EMPTY_TWIML);
  }
  const from = form.From ?? "";
  const to = form.To ?? "";
  if (!from || !to || !form.MessageSid) return new Response("Missing From, To or MessageSid", { status: 400 });
  const outcome = await receiveSms(deps.db, {
    from,
    to,
    body: form.Body ?? "",
    providerMessageId: form.MessageSid,
    optOutType: form.OptOutType ?? null,
    optOutHandling: messaging.settings.optOutHandling,
    now: deps.now(),
  });
  return twiml(messageTwiml(outcome.reply));
}
