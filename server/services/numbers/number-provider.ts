import type { NumberCarrier } from "@/db/schema";

/** The carriers numbers can be bought from (the API's `carrier`, default `twilio`). */
export const PROVISIONING_CARRIERS = ["twilio", "telnyx"] as const satisfies readonly NumberCarrier[];
export type ProvisioningCarrier = (typeof PROVISIONING_CARRIERS)[number];

/** A number the carrier offers for sale (Twilio: AvailablePhoneNumbers). */
export type AvailableNumber = {
  phoneNumber: string;
  /** ISO 3166-2 where the carrier says (Twilio's `region` is the state's code: `NY` → `US-NY`). */
  region: string | null;
  locality: string | null;
  voice: boolean;
  sms: boolean;
};

export type SearchAvailableNumbersParams = {
  /** ISO 3166-1 alpha-2. */
  country: string;
  areaCode?: string;
  /** The state or province code (`NY`). */
  region?: string;
  /** Digits the number contains (Twilio's `Contains`: digits and `*` wildcards). */
  contains?: string;
  voice?: boolean;
  sms?: boolean;
  limit: number;
};

/** Where the carrier sends a number's calls and messages: this deployment's webhooks (PUBLIC_BASE_URL). */
export type NumberWebhooks = { voiceUrl: string; voiceStatusUrl: string; smsUrl: string };

/** A number in the platform's carrier account (bought now, or already there). */
export type AccountNumber = { providerSid: string; phoneNumber: string; voice: boolean; sms: boolean; region: string | null; locality: string | null };

export type CallerIdValidation = { validationCode: string; providerCallId: string | null };

/**
 * The carrier's number provisioning (docs/numbers.md): searching and buying numbers with their webhooks set to this
 * deployment, finding a number already in the platform account, releasing, and the caller-ID validation call.
 * Errors: `NumberProviderError` with the carrier's code; `permanent` when asking again cannot help.
 */
export type NumberProvider = {
  carrier: NumberCarrier;
  searchAvailable(params: SearchAvailableNumbersParams): Promise<AvailableNumber[]>;
  buy(params: { phoneNumber: string; webhooks: NumberWebhooks; friendlyName: string }): Promise<AccountNumber>;
  /** The number, when it is in the platform account. */
  findInAccount(phoneNumber: string): Promise<AccountNumber | null>;
  /** Points an account number's webhooks at this deployment. */
  pointWebhooks(providerSid: string, webhooks: NumberWebhooks): Promise<void>;
  /** Gives a bought number back to the carrier (the account stops paying for it). */
  releasePurchased(providerSid: string): Promise<void>;
  /** The carrier calls `phoneNumber`; whoever answers enters `validationCode`; the result comes to `statusCallback`. */
  startCallerIdValidation(params: { phoneNumber: string; friendlyName: string; statusCallback: string }): Promise<CallerIdValidation>;
  /** The verified caller ID of `phoneNumber`, if the account has one. */
  findCallerId(phoneNumber: string): Promise<{ providerSid: string } | null>;
  removeCallerId(providerSid: string): Promise<void>;
};

export class NumberProviderError extends Error {
  constructor(
    message: string,
    readonly code: string | null,
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = "NumberProviderError";
  }
}
