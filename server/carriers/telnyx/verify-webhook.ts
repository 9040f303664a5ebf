import { and, eq, lt } from "drizzle-orm";
import type Telnyx from "telnyx";
import type { Db } from "@/db";
import { carrierWebhookEvents } from "@/db/schema";
import { getLogger } from "@/server/observability/logger";

/** Telnyx's envelope (https://developers.telnyx.com/docs/messaging/messages/receiving-webhooks): the event in `data`. */
export type TelnyxEvent = { data: { id: string; event_type: string; occurred_at?: string; payload: Record<string, unknown> } };

/**
 * Events older than this are refused as stale by the signature check (five minutes, the `telnyx` SDK's tolerance as
 * Telnyx documents); ids are kept a little longer, then pruned: a replay past that is stale anyway.
 */
export const TELNYX_EVENT_ID_RETENTION_MS = 10 * 60_000;
const MAX_BODY_CHARS = 256_000;

export type TelnyxWebhookCheck =
  | { ok: true; event: TelnyxEvent; /** Forgets the event id (its handling failed: Telnyx's retry of it must be accepted). */ forget: () => Promise<void> }
  | { ok: false; response: Response };

function refuse(status: 400 | 403, error: string, message: string): { ok: false; response: Response } {
  return { ok: false, response: Response.json({ error, message }, { status, headers: { "cache-control": "no-store" } }) };
}

/**
 * The trust boundary of every Telnyx webhook (docs/carriers.md "Telnyx"): the Ed25519 signature of
 * `${telnyx-timestamp}|${raw body}` with the account's public key and the timestamp within five minutes of now, both
 * checked by the official SDK (`client.webhooks.unwrap`, which does exactly this with Node's WebCrypto), then the
 * event's `data.id` recorded once in Postgres so the same event delivered again is refused on every instance.
 * Refused (forged, stale, replayed) → 403 `{error, message}`, nothing read or stored but the id of a genuine event.
 */
export async function verifyTelnyxWebhook(db: Db, request: Request, client: Telnyx, now: Date): Promise<TelnyxWebhookCheck> {
  const body = await request.text();
  if (body.length > MAX_BODY_CHARS) return refuse(403, "FORBIDDEN", "The webhook body is too large to be Telnyx's.");
  const headers = Object.fromEntries(request.headers.entries());
  try {
    await client.webhooks.unwrap(body, { headers });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    getLogger("telnyx-webhooks").warn({ reason }, "Telnyx webhook refused: signature or timestamp");
    return refuse(403, "FORBIDDEN", `Telnyx webhook refused: ${reason}`.slice(0, 300));
  }
  let event: TelnyxEvent;
  try {
    event = JSON.parse(body) as TelnyxEvent;
  } catch {
    return refuse(400, "INVALID_REQUEST", "The webhook body is not JSON.");
  }
  const id = event?.data?.id;
  if (typeof id !== "string" || !id || id.length > 200 || typeof event.data.event_type !== "string") return refuse(400, "INVALID_REQUEST", "The webhook has no data.id or data.event_type.");

  await db.delete(carrierWebhookEvents).where(and(eq(carrierWebhookEvents.carrier, "telnyx"), lt(carrierWebhookEvents.receivedAt, new Date(now.getTime() - TELNYX_EVENT_ID_RETENTION_MS))));
  const [recorded] = await db.insert(carrierWebhookEvents).values({ carrier: "telnyx", eventId: id, receivedAt: now }).onConflictDoNothing().returning({ eventId: carrierWebhookEvents.eventId });
  if (!recorded) {
    getLogger("telnyx-webhooks").warn({ eventId: id, eventType: event.data.event_type }, "Telnyx webhook refused: replayed event");
    return refuse(403, "FORBIDDEN", `Telnyx webhook refused: event ${id} was already received.`);
  }
  const forget = async () => {
    await db.delete(carrierWebhookEvents).where(and(eq(carrierWebhookEvents.carrier, "telnyx"), eq(carrierWebhookEvents.eventId, id)));
  };
  return { ok: true, event, forget };
}
