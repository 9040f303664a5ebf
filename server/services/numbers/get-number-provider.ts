import type { NumberCarrier } from "@/db/schema";
import { getTelnyxAccount, TELNYX_MESSAGE_INBOUND_PATH } from "@/server/carriers/telnyx/telnyx-account";
import { createTelnyxNumberProvider } from "@/server/carriers/telnyx/telnyx-numbers";
import { createTwilioNumberProvider } from "@/server/carriers/twilio/twilio-numbers";
import { getMessaging, TWILIO_MESSAGE_INBOUND_PATH, TWILIO_VOICE_INBOUND_PATH, TWILIO_VOICE_STATUS_PATH } from "@/server/services/messaging/twilio-messaging";
import { twilioPath } from "@/server/voice/twilio-realtime/settings";
import type { NumberProvider, NumberWebhooks } from "./number-provider";

export { PROVISIONING_CARRIERS, type ProvisioningCarrier } from "./number-provider";

/** Where Twilio posts the result of a caller-ID validation call (app/api/carriers/[carrier]/[...path]; alias app/api/twilio/numbers/[hook]). */
export const TWILIO_NUMBER_VALIDATION_PATH = twilioPath("numbers", "validation");

export type NumberProvisioning = {
  provider: NumberProvider;
  /** The webhooks every number of this deployment gets: PUBLIC_BASE_URL + our paths. */
  webhooks: NumberWebhooks;
  validationCallbackUrl: string;
};


/** Each number carrier's provisioning; the simulator's fictional numbers are on Twilio's side. */
const PROVISIONING: Record<NumberCarrier, () => Promise<NumberProvisioning>> = { twilio: twilioProvisioning, simulator: twilioProvisioning, telnyx: telnyxProvisioning };

/**
 * The platform's account with that carrier (default Twilio): Twilio when configured (TWILIO_ACCOUNT_SID), else the
 * embedded Twilio simulator that also carries SMS (server/services/messaging/twilio-messaging.ts); Telnyx when
 * TELNYX_API_KEY is set, else the embedded Telnyx simulator — one code path, the official client, either way. A
 * number's own carrier (`numbers.carrier`) decides for it; the simulator's fictional numbers are Twilio's side.
 */
export function getNumberProvisioning(carrier: NumberCarrier = "twilio"): Promise<NumberProvisioning> {
  return PROVISIONING[carrier]();
}

/** Telnyx: webhooks are the Messaging Profile's and the Call Control Application's; these are what they must be. */
async function telnyxProvisioning(): Promise<NumberProvisioning> {
  const account = await getTelnyxAccount();
  const base = account.publicBaseUrl;
  return {
    provider: createTelnyxNumberProvider(account),
    webhooks: { voiceUrl: `${base}/api/carriers/telnyx/calls/events`, voiceStatusUrl: `${base}/api/carriers/telnyx/calls/events`, smsUrl: `${base}${TELNYX_MESSAGE_INBOUND_PATH}` },
    validationCallbackUrl: `${base}${TWILIO_NUMBER_VALIDATION_PATH}`,
  };
}

async function twilioProvisioning(): Promise<NumberProvisioning> {
  const { settings } = await getMessaging();
  const base = settings.publicBaseUrl;
  return {
    provider: createTwilioNumberProvider({ twilio: settings }),
    webhooks: { voiceUrl: `${base}${TWILIO_VOICE_INBOUND_PATH}`, voiceStatusUrl: `${base}${TWILIO_VOICE_STATUS_PATH}`, smsUrl: `${base}${TWILIO_MESSAGE_INBOUND_PATH}` },
    validationCallbackUrl: `${base}${TWILIO_NUMBER_VALIDATION_PATH}`,
  };
}
