import { NumberProviderError, type AccountNumber, type NumberProvider } from "@/server/services/numbers/number-provider";
import type { TelnyxAccount } from "./telnyx-account";
import { telnyxFailure } from "./telnyx-sms";

/**
 * Telnyx's number provisioning through the official client (docs/carriers.md "Telnyx"):
 * - search: `available_phone_numbers.list` (https://developers.telnyx.com/api/numbers/list-available-phone-numbers),
 * - buy: `number_orders.create` with the account's connection and messaging profile
 *   (https://developers.telnyx.com/api/numbers/create-number-order), then the number's id from `phone_numbers.list`,
 * - release: `phone_numbers.delete` (https://developers.telnyx.com/api/numbers/delete-phone-number).
 * A Telnyx number's webhooks are its Messaging Profile's and Call Control Application's (TELNYX_MESSAGING_PROFILE_ID,
 * TELNYX_CONNECTION_ID), set once in Mission Control, not per number: pointing them is joining those. Caller-ID
 * validation stays with Twilio's (refused here, permanent).
 */
export function createTelnyxNumberProvider(account: Pick<TelnyxAccount, "client" | "connectionId" | "messagingProfileId">): NumberProvider {
  const { client } = account;
  const wrap = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      if (error instanceof NumberProviderError) throw error;
      const failure = telnyxFailure(error);
      const permanent = failure.code !== null && failure.status >= 400 && failure.status < 500 && failure.status !== 429;
      throw new NumberProviderError(`Telnyx (${what}): ${failure.message}`.slice(0, 300), failure.code, permanent);
    }
  };
  const owned = async (phoneNumber: string): Promise<AccountNumber | null> => {
    const page = await client.phoneNumbers.list({ filter: { phone_number: phoneNumber } });
    const row = page.data.find((candidate) => candidate.phone_number === phoneNumber);
    return row?.id ? { providerSid: row.id, phoneNumber, voice: true, sms: true, region: null, locality: null } : null;
  };
  const unsupported = (what: string) => Promise.reject(new NumberProviderError(`Telnyx: ${what} goes through Twilio's caller-ID validation, not Telnyx.`, null, true));

  return {
    carrier: "telnyx",
    searchAvailable: (params) =>
      wrap("search", async () => {
        const features = [...(params.voice ? ["voice" as const] : []), ...(params.sms ? ["sms" as const] : [])];
        const { data } = await client.availablePhoneNumbers.list({
          filter: {
            country_code: params.country,
            ...(params.areaCode ? { national_destination_code: params.areaCode } : {}),
            ...(params.region ? { administrative_area: params.region } : {}),
            ...(params.contains ? { phone_number: { contains: params.contains.replaceAll("*", "") } } : {}),
            ...(features.length > 0 ? { features } : {}),
            limit: params.limit,
          },
        });
        return (data ?? []).map((row) => {
          const names = new Set((row.features ?? []).map((feature) => feature.name));
          const state = row.region_information?.find((region) => region.region_type === "state")?.region_name;
          const city = row.region_information?.find((region) => region.region_type === "rate_center")?.region_name;
          return { phoneNumber: row.phone_number ?? "", region: state ? `${params.country}-${state}` : null, locality: city ?? null, voice: names.has("voice"), sms: names.has("sms") };
        });
      }),
    buy: ({ phoneNumber, friendlyName }) =>
      wrap("buy", async () => {
        const { data } = await client.numberOrders.create({
          phone_numbers: [{ phone_number: phoneNumber }],
          customer_reference: friendlyName.slice(0, 100),
          ...(account.connectionId ? { connection_id: account.connectionId } : {}),
          ...(account.messagingProfileId ? { messaging_profile_id: account.messagingProfileId } : {}),
        });
        const ordered = data?.phone_numbers?.find((entry) => entry.phone_number === phoneNumber);
        if (!ordered || ordered.status === "failure") throw new NumberProviderError(`Telnyx (buy): the order for ${phoneNumber} did not succeed (${ordered?.status ?? "not in the order"}).`, null, true);
        const number = await owned(phoneNumber);
        if (!number) throw new NumberProviderError(`Telnyx (buy): ${phoneNumber} was ordered (${data?.status ?? "pending"}) but is not in the account yet; try again shortly.`, null, false);
        return number;
      }),
    findInAccount: (phoneNumber) => wrap("find", () => owned(phoneNumber)),
    pointWebhooks: async () => {},
    releasePurchased: (providerSid) =>
      wrap("release", async () => {
        await client.phoneNumbers.delete(providerSid);
      }),
    startCallerIdValidation: () => unsupported("a caller-ID validation call"),
    findCallerId: async () => null,
    removeCallerId: () => unsupported("removing a verified caller ID"),
  };
}
