import { getDb } from "@/db";
import type { CarrierWebhookArea } from "../webhook-types";
import { getTelnyxAccount } from "./telnyx-account";
import { handleTelnyxMessagingWebhook } from "./telnyx-messaging-webhooks";

/**
 * Telnyx's URL family, `/api/carriers/telnyx/<area>/<hook>` (docs/carriers.md "Telnyx"): messaging today (SMS status and
 * inbound SMS, Ed25519-verified); the call areas come with the Telnyx voice engine.
 */
export const telnyxWebhookAreas: Record<"messages", CarrierWebhookArea> = {
  messages: { hooks: ["status", "inbound"], handle: (request) => handleTelnyxMessagingWebhook(request, { db: getDb(), now: () => new Date(), account: getTelnyxAccount }) },
};
