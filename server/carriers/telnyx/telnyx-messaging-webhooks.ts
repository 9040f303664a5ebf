import type { Db } from "@/db";
import { parseQuery, queryRefusalResponse } from "@/server/http/query-params";
import { getLogger } from "@/server/observability/logger";
import { maskPhoneNumber } from "@/server/observability/redact";
import { applySmsStatusCallback, receiveSms } from "@/server/services/messaging/receive-sms";
import { ZSmsStatusQuerySchema } from "@/server/services/messaging/twilio-webhooks";
import type { TelnyxAccount } from "./telnyx-account";
import { verifyTelnyxWebhook, type TelnyxEvent } from "./verify-webhook";

export type TelnyxWebhookDeps = { db: Db; now: () => Date; account: () => Promise<TelnyxAccount> };

/**
 * Telnyx's delivery states (`to[].status` of `message.sent` / `message.finalized`,
 * https://developers.telnyx.com/docs/messaging/messages/receiving-webhooks) in the words applySmsStatusCallback reads.
 * `delivery_unconfirmed` (the handset's carrier sent no receipt) stays `sent`.
 */
const TELNYX_STATUSES: Record<string, string> = { sent: "sent", delivered: "delivered", delivery_failed: "undelivered", sending_failed: "failed" };

type TelnyxMessagePayload = { id?: string; text?: string; from?: { phone_number?: string }; to?: Array<{ phone_number?: string; status?: string }>; errors?: Array<{ code?: string }> };

const ok = () => Response.json({ received: true }, { headers: { "cache-control": "no-store" } });

async function status(request: Request, deps: TelnyxWebhookDeps, event: TelnyxEvent): Promise<Response> {
  const parsed = parseQuery(ZSmsStatusQuerySchema, new URL(request.url));
  if (!parsed.ok) return queryRefusalResponse(parsed.refusal);
  const payload = event.data.payload as TelnyxMessagePayload;
  const telnyxStatus = payload.to?.[0]?.status ?? "";
  const mapped = TELNYX_STATUSES[telnyxStatus];
  if (!mapped || !payload.id) return ok();
  const outcome = await applySmsStatusCallback(deps.db, { messageId: parsed.query.messageId, messageSid: payload.id, status: mapped, errorCode: payload.errors?.[0]?.code ?? null, now: deps.now(), carrier: "Telnyx" });
  if (outcome === "ignored") getLogger("sequence-messages").debug({ messageId: parsed.query.messageId, status: telnyxStatus }, "Telnyx SMS status ignored");
  return ok();
}

/**
 * An SMS to one of our Telnyx numbers (`message.received`): into the same service as Twilio's (STOP, START, HELP,
 * replies ending a sequence). Telnyx has no TwiML: a keyword's answer is sent back with `messages.send`. The app
 * answers every keyword (SMS_OPT_OUT_HANDLING is about Twilio's handling; docs/carriers.md "Telnyx").
 */
async function inbound(deps: TelnyxWebhookDeps, event: TelnyxEvent, account: TelnyxAccount): Promise<Response> {
  const payload = event.data.payload as TelnyxMessagePayload;
  const from = payload.from?.phone_number ?? "";
  const to = payload.to?.[0]?.phone_number ?? "";
  if (!from || !to || !payload.id) return Response.json({ error: "INVALID_REQUEST", message: "message.received without from, to or id." }, { status: 400 });
  const outcome = await receiveSms(deps.db, { from, to, body: payload.text ?? "", providerMessageId: payload.id, optOutType: null, optOutHandling: "app", carrier: "telnyx", now: deps.now() });
  if (outcome.reply) {
    try {
      await account.client.messages.send({ from: to, to: from, text: outcome.reply });
    } catch (error) {
      // The keyword took effect (suppression, sequences ended); only its answer is lost, which a retry would not fix.
      getLogger("sequence-messages").warn({ to: maskPhoneNumber(from), error: error instanceof Error ? error.message : String(error) }, "Telnyx: the keyword's answer could not be sent");
    }
  }
  return ok();
}

/**
 * `POST /api/carriers/telnyx/messages/status?messageId=…` (the delivery of an SMS we sent: `message.sent`,
 * `message.finalized`) and `POST …/messages/inbound` (`message.received`). Trust boundary: verifyTelnyxWebhook
 * (forged, stale or replayed → 403 `{error, message}`, nothing changed). Other event types are acknowledged and ignored.
 */
export async function handleTelnyxMessagingWebhook(request: Request, deps: TelnyxWebhookDeps): Promise<Response> {
  const hook = new URL(request.url).pathname.split("/").at(-1);
  if (request.method !== "POST" || (hook !== "status" && hook !== "inbound")) return Response.json({ error: "NOT_FOUND", message: "Not a Telnyx messaging webhook." }, { status: 404 });
  const account = await deps.account();
  const checked = await verifyTelnyxWebhook(deps.db, request, account.client, deps.now());
  if (!checked.ok) return checked.response;
  try {
    const type = checked.event.data.event_type;
    if (hook === "status" && (type === "message.sent" || type === "message.finalized")) return await status(request, deps, checked.event);
    if (hook === "inbound" && type === "message.received") return await inbound(deps, checked.event, account);
    return ok();
  } catch (error) {
    await checked.forget();
    throw error;
  }
}
