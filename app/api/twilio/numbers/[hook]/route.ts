import { getDb } from "@/db";
import { getMessaging } from "@/server/services/messaging/twilio-messaging";
import { handleNumberValidationWebhook } from "@/server/services/numbers/validation-webhook";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Twilio's signed result of a caller-ID validation call (server/services/numbers/validation-webhook.ts). */
export async function POST(request: Request): Promise<Response> {
  return handleNumberValidationWebhook(request, { db: getDb(), now: () => new Date(), messaging: getMessaging });
}
