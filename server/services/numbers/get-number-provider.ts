import { createTwilioNumberProvider } from "@/server/carriers/twilio/twilio-numbers";
import { getMessaging, TWILIO_MESSAGE_INBOUND_PATH, TWILIO_VOICE_INBOUND_PATH, TWILIO_VOICE_STATUS_PATH } from "@/server/services/messaging/twilio-messaging";
import { twilioPath } from "@/server/voice/twilio-realtime/settings";
import type { NumberProvider, NumberWebhooks } from "./number-provider";

/** Where Twilio posts the result of a caller-ID validation call (app/api/carriers/[carrier]/[...path]; alias app/api/twilio/numbers/[hook]). */
export const TWILIO_NUMBER_VALIDATION_PATH = twilioPath("numbers", "validation");

export type NumberProvisioning = {
  provider: NumberProvider;
  /** The webhooks every number of this deployment gets: PUBLIC_BASE_URL + our paths. */
  webhooks: NumberWebhooks;
  validationCallbackUrl: string;
};

/**
 * The platform's carrier account: Twilio when configured (TWILIO_ACCOUNT_SID), else the embedded Twilio simulator that
 * also carries SMS (server/services/messaging/twilio-messaging.ts) — one code path, the official client, either way.
 */
export async function getNumberProvisioning(): Promise<NumberProvisioning> {
  const { settings } = await getMessaging();
  const base = settings.publicBaseUrl;
  return {
    provider: createTwilioNumberProvider({ twilio: settings }),
    webhooks: { voiceUrl: `${base}${TWILIO_VOICE_INBOUND_PATH}`, voiceStatusUrl: `${base}${TWILIO_VOICE_STATUS_PATH}`, smsUrl: `${base}${TWILIO_MESSAGE_INBOUND_PATH}` },
    validationCallbackUrl: `${base}${TWILIO_NUMBER_VALIDATION_PATH}`,
  };
}
