import { createTwilioClient, twilioErrorCode, type TwilioClient } from "@/server/carriers/twilio/twilio-client";
import type { TwilioRealtimeSettings } from "@/server/voice/twilio-realtime/settings";
import { NumberProviderError, type AccountNumber, type NumberProvider } from "@/server/services/numbers/number-provider";

/**
 * Twilio's number provisioning through the official client:
 * - AvailablePhoneNumbers (https://www.twilio.com/docs/phone-numbers/api/availablephonenumberlocal-resource),
 * - IncomingPhoneNumbers create / update / delete (https://www.twilio.com/docs/phone-numbers/api/incomingphonenumber-resource),
 * - OutgoingCallerIds and its validation request (https://www.twilio.com/docs/voice/api/outgoing-caller-id).
 */
export function createTwilioNumberProvider(settings: Pick<TwilioRealtimeSettings, "twilio">): NumberProvider {
  const client: TwilioClient = createTwilioClient(settings);
  const region = (country: string, code: string | null | undefined) => (code ? `${country}-${code}` : null);
  const accountNumber = (row: { sid: string; phoneNumber: string; capabilities?: { voice?: boolean; sms?: boolean; SMS?: boolean } }): AccountNumber => ({
    providerSid: row.sid,
    phoneNumber: row.phoneNumber,
    voice: row.capabilities?.voice !== false,
    sms: Boolean(row.capabilities?.sms ?? row.capabilities?.SMS),
    region: null,
    locality: null,
  });
  const wrap = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      const code = twilioErrorCode(error);
      const status = (error as { status?: number }).status ?? 0;
      const permanent = code !== null && status >= 400 && status < 500 && status !== 429;
      throw new NumberProviderError(`Twilio (${what}): ${error instanceof Error ? error.message : String(error)}`.slice(0, 300), code === null ? null : String(code), permanent);
    }
  };

  return {
    carrier: "twilio",
    searchAvailable: (params) =>
      wrap("search", async () => {
        const rows = await client.availablePhoneNumbers(params.country).local.list({
          ...(params.areaCode ? { areaCode: Number(params.areaCode) } : {}),
          ...(params.region ? { inRegion: params.region } : {}),
          ...(params.contains ? { contains: params.contains } : {}),
          ...(params.voice ? { voiceEnabled: true } : {}),
          ...(params.sms ? { smsEnabled: true } : {}),
          limit: params.limit,
        });
        return rows.map((row) => ({
          phoneNumber: row.phoneNumber,
          region: region(params.country, row.region),
          locality: row.locality || null,
          voice: row.capabilities?.voice !== false,
          sms: Boolean(row.capabilities?.sms ?? (row.capabilities as { SMS?: boolean } | undefined)?.SMS),
        }));
      }),
    buy: ({ phoneNumber, webhooks, friendlyName }) =>
      wrap("buy", async () =>
        accountNumber(
          await client.incomingPhoneNumbers.create({
            phoneNumber,
            friendlyName,
            voiceUrl: webhooks.voiceUrl,
            voiceMethod: "POST",
            statusCallback: webhooks.voiceStatusUrl,
            statusCallbackMethod: "POST",
            smsUrl: webhooks.smsUrl,
            smsMethod: "POST",
          }),
        ),
      ),
    findInAccount: (phoneNumber) =>
      wrap("find", async () => {
        // Twilio's PhoneNumber filter also matches partial numbers (a longer number that starts with this one): keep the exact one.
        const rows = await client.incomingPhoneNumbers.list({ phoneNumber, pageSize: 50 });
        const row = rows.find((candidate) => candidate.phoneNumber === phoneNumber);
        return row ? accountNumber(row) : null;
      }),
    pointWebhooks: (providerSid, webhooks) =>
      wrap("update", async () => {
        await client.incomingPhoneNumbers(providerSid).update({
          voiceUrl: webhooks.voiceUrl,
          voiceMethod: "POST",
          statusCallback: webhooks.voiceStatusUrl,
          statusCallbackMethod: "POST",
          smsUrl: webhooks.smsUrl,
          smsMethod: "POST",
        });
      }),
    releasePurchased: (providerSid) =>
      wrap("release", async () => {
        await client.incomingPhoneNumbers(providerSid).remove();
      }),
    startCallerIdValidation: ({ phoneNumber, friendlyName, statusCallback }) =>
      wrap("validation", async () => {
        const request = await client.validationRequests.create({ phoneNumber, friendlyName, statusCallback, statusCallbackMethod: "POST" });
        return { validationCode: String(request.validationCode), providerCallId: request.callSid ?? null };
      }),
    findCallerId: (phoneNumber) =>
      wrap("caller-id", async () => {
        const [row] = await client.outgoingCallerIds.list({ phoneNumber, limit: 1 });
        return row ? { providerSid: row.sid } : null;
      }),
    removeCallerId: (providerSid) =>
      wrap("caller-id", async () => {
        await client.outgoingCallerIds(providerSid).remove();
      }),
  };
}
