import { getDb } from "@/db";
import { handleTwilioMessagingWebhook } from "@/server/services/messaging/twilio-webhooks";
import { getMessaging } from "@/server/services/messaging/twilio-messaging";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Twilio's signed messaging webhooks: SMS delivery status and inbound SMS (server/services/messaging/twilio-webhooks.ts). */
export async function POST(request: Request): Promise<Response> {
  return handleTwilioMessagingWebhook(request, { db: getDb(), now: () => new Date(), messaging: getMessaging });
}
