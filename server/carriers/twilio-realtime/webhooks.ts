import { getDb } from "@/db";
import { handleTwilioMessagingWebhook } from "@/server/services/messaging/twilio-webhooks";
import { getMessaging } from "@/server/services/messaging/twilio-messaging";
import { handleNumberValidationWebhook } from "@/server/services/numbers/validation-webhook";
import { getTwilioRealtimeEngine } from "@/server/voice";
import { TWILIO_VOICE_HOOKS } from "@/server/voice/twilio-realtime/inbound";
import { TWILIO_HOOKS, type TwilioUrlArea } from "@/server/voice/twilio-realtime/settings";
import type { CarrierWebhookArea } from "../webhook-types";

/**
 * Twilio's URL family, `/api/carriers/twilio/<area>/<hook>` (docs/carriers.md "URLs"): the same handlers as the older
 * paths (app/api/voice/twilio, app/api/twilio/{voice,messages,numbers}), which stay as aliases. The call areas need
 * `VOICE_ENGINE=twilio-realtime` (else 404, as before); messaging and numbers always go to Twilio (or its simulator).
 */
export const twilioWebhookAreas: Record<TwilioUrlArea, CarrierWebhookArea> = {
  calls: { hooks: TWILIO_HOOKS, handle: (request) => getTwilioRealtimeEngine()?.handleCallback(request) ?? null },
  voice: { hooks: TWILIO_VOICE_HOOKS, handle: (request) => getTwilioRealtimeEngine()?.handleInboundWebhook(request) ?? null },
  messages: { hooks: ["status", "inbound"], handle: (request) => handleTwilioMessagingWebhook(request, { db: getDb(), now: () => new Date(), messaging: getMessaging }) },
  numbers: { hooks: ["validation"], handle: (request) => handleNumberValidationWebhook(request, { db: getDb(), now: () => new Date(), messaging: getMessaging }) },
};
