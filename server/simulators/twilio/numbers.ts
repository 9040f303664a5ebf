import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { locateNumber } from "@/server/services/compliance/area-code-regions";
import { containsPattern, findInInventory, INVENTORY_COUNTRIES, inventoryOf, isGeographicAreaCode, type InventoryNumber } from "./numbers-inventory";
import { isCallbackUrl, json, listPage, noContent, notFound, rfc2822, twilioError } from "./rest";

/**
 * Phone numbers of the simulated account, written from Twilio's documentation:
 * - Searching: https://www.twilio.com/docs/phone-numbers/api/availablephonenumberlocal-resource — `GET
 *   AvailablePhoneNumbers/{Country}/Local.json` with `AreaCode`, `Contains`, `InRegion`, `InLocality`, `SmsEnabled`,
 *   `MmsEnabled`, `VoiceEnabled`, `FaxEnabled`, `Exclude*AddressRequired`, `PageSize`; the numbers of numbers-inventory.ts
 *   the account does not hold. Capabilities are keyed `voice`, `SMS`, `MMS`, `fax` in this resource, as the live API
 *   answers (the `twilio` package passes the object through).
 * - Buying, configuring, releasing: https://www.twilio.com/docs/phone-numbers/api/incomingphonenumber-resource —
 *   `POST IncomingPhoneNumbers.json` (`PhoneNumber` or `AreaCode`, the voice and messaging webhooks, `FriendlyName`)
 *   → 201; `GET` the list (`PhoneNumber` pattern, `FriendlyName`), `GET`/`POST`/`DELETE IncomingPhoneNumbers/{PN}.json`.
 *   Errors: https://www.twilio.com/docs/errors/21421 (invalid number), /21422 (PhoneNumber is not available),
 *   /21451 (invalid area code), /21452 (no phone numbers found in area code), /21502 (invalid callback URL),
 *   /20404 (not found).
 * - Where a call or a message to an account number goes: the number's `VoiceUrl` (with `VoiceMethod`) and
 *   `StatusCallback`, and its `SmsUrl` (https://www.twilio.com/docs/usage/webhooks/voice-webhooks,
 *   https://www.twilio.com/docs/messaging/guides/webhook-request). A number the account does not hold is not in service
 *   for the simulator: nothing reaches Twilio (`SimNumberNotInServiceError`).
 * Parameters the simulator cannot honour (distance searches, rate centers, LATAs, postal codes) are refused with 400
 * rather than ignored; that 400 carries code 20001, the simulator's own "invalid parameter" answer.
 */

export type SimIncomingNumber = {
  sid: string;
  phoneNumber: string;
  friendlyName: string;
  voice: boolean;
  sms: boolean;
  mms: boolean;
  fax: boolean;
  voiceUrl: string;
  voiceMethod: string;
  voiceFallbackUrl: string;
  voiceFallbackMethod: string;
  statusCallback: string;
  statusCallbackMethod: string;
  smsUrl: string;
  smsMethod: string;
  smsFallbackUrl: string;
  smsFallbackMethod: string;
  voiceCallerIdLookup: boolean;
  addressRequirements: InventoryNumber["addressRequirements"];
  /** Bought through the REST API, or put in the account by the test (`addAccountNumber`: a platform account number). */
  source: "bought" | "seeded";
  createdAt: Date;
  updatedAt: Date;
};

/** `addAccountNumber` options: capabilities and webhooks of a number the account holds without having bought it here. */
export type AccountNumberOptions = {
  voice?: boolean;
  sms?: boolean;
  friendlyName?: string;
  voiceUrl?: string;
  statusCallback?: string;
  smsUrl?: string;
};

/** A call or a message to a number the account does not hold (never bought, or released): the carrier's intercept. */
export class SimNumberNotInServiceError extends Error {
  constructor(
    readonly phoneNumber: string,
    reason: string,
  ) {
    super(`${phoneNumber} is not in service on this account (${reason}): the caller hears the carrier's intercept and no webhook is requested`);
    this.name = "SimNumberNotInServiceError";
  }
}

const E164 = /^\+[1-9]\d{6,14}$/;
const UNSUPPORTED_SEARCH = ["NearNumber", "NearLatLong", "Distance", "InPostalCode", "InRateCenter", "InLata"];
/** Form fields of create and update, with the record field each sets. */
const URL_FIELDS = { VoiceUrl: "voiceUrl", VoiceFallbackUrl: "voiceFallbackUrl", StatusCallback: "statusCallback", SmsUrl: "smsUrl", SmsFallbackUrl: "smsFallbackUrl" } as const;
const METHOD_FIELDS = { VoiceMethod: "voiceMethod", VoiceFallbackMethod: "voiceFallbackMethod", StatusCallbackMethod: "statusCallbackMethod", SmsMethod: "smsMethod", SmsFallbackMethod: "smsFallbackMethod" } as const;

export class SimNumbers {
  /** The account's IncomingPhoneNumbers by SID. */
  readonly incoming = new Map<string, SimIncomingNumber>();

  constructor(private readonly accountSid: string) {}

  private get base(): string {
    return `/2010-04-01/Accounts/${this.accountSid}`;
  }

  /** The account's number with this E.164 form, if it holds it. */
  find(phoneNumber: string): SimIncomingNumber | undefined {
    return [...this.incoming.values()].find((number) => number.phoneNumber === phoneNumber);
  }

  private heldNumbers(): Set<string> {
    return new Set([...this.incoming.values()].map((number) => number.phoneNumber));
  }

  /** Puts a number in the account that nobody bought through the API (a number the platform already had). */
  addAccountNumber(phoneNumber: string, options: AccountNumberOptions = {}): SimIncomingNumber {
    if (!E164.test(phoneNumber)) throw new Error(`addAccountNumber needs an E.164 number, not ${phoneNumber}`);
    if (this.find(phoneNumber)) throw new Error(`${phoneNumber} is already in the account`);
    const stock = findInInventory(phoneNumber);
    const number = this.create(phoneNumber, stock, "seeded");
    number.voice = options.voice ?? true;
    number.sms = options.sms ?? stock?.sms ?? true;
    number.mms = number.sms;
    number.friendlyName = options.friendlyName ?? number.friendlyName;
    number.voiceUrl = options.voiceUrl ?? "";
    number.statusCallback = options.statusCallback ?? "";
    number.smsUrl = options.smsUrl ?? "";
    return number;
  }

  /**
   * Where a call to `phoneNumber` goes (its VoiceUrl, VoiceMethod, StatusCallback). Throws SimNumberNotInServiceError
   * when the account does not hold it or it has no voice URL (Twilio has nowhere to ask for TwiML).
   */
  voiceRouteOf(phoneNumber: string): { url: string; method: string; statusCallback: string | null } {
    const number = this.find(phoneNumber);
    if (!number) throw new SimNumberNotInServiceError(phoneNumber, "not a number of this account");
    if (!number.voice || !number.voiceUrl) throw new SimNumberNotInServiceError(phoneNumber, number.voice ? "no VoiceUrl configured" : "not voice-capable");
    return { url: number.voiceUrl, method: number.voiceMethod, statusCallback: number.statusCallback || null };
  }

  /** Where a message to `phoneNumber` goes (its SmsUrl); throws SimNumberNotInServiceError as voiceRouteOf. */
  smsUrlOf(phoneNumber: string): string {
    const number = this.find(phoneNumber);
    if (!number) throw new SimNumberNotInServiceError(phoneNumber, "not a number of this account");
    if (!number.sms || !number.smsUrl) throw new SimNumberNotInServiceError(phoneNumber, number.sms ? "no SmsUrl configured" : "not SMS-capable");
    return number.smsUrl;
  }

  /** REST: AvailablePhoneNumbers Local and IncomingPhoneNumbers; null when the path is not theirs. */
  async handle(req: IncomingMessage, res: ServerResponse, rest: string, readForm: () => Promise<URLSearchParams>, url: URL): Promise<number | null> {
    const available = rest.match(/^\/AvailablePhoneNumbers\/([A-Z]{2})\/Local\.json$/);
    if (available && req.method === "GET") return this.search(res, available[1]!, url);
    if (rest === "/IncomingPhoneNumbers.json" && req.method === "POST") return this.buy(res, await readForm());
    if (rest === "/IncomingPhoneNumbers.json" && req.method === "GET") return this.list(res, url);
    const one = rest.match(/^\/IncomingPhoneNumbers\/(PN[0-9a-f]{32})\.json$/);
    if (!one) return null;
    const number = this.incoming.get(one[1]!);
    if (!number) return notFound(res);
    if (req.method === "GET") return json(res, 200, this.toJson(number));
    if (req.method === "DELETE") {
      this.incoming.delete(number.sid);
      return noContent(res);
    }
    if (req.method === "POST") {
      const problem = this.configure(number, await readForm());
      if (problem) return problem(res);
      number.updatedAt = new Date();
      return json(res, 200, this.toJson(number));
    }
    return null;
  }

  private search(res: ServerResponse, country: string, url: URL): number {
    if (!INVENTORY_COUNTRIES.has(country)) return notFound(res);
    const query = url.searchParams;
    const unsupported = UNSUPPORTED_SEARCH.find((name) => query.has(name));
    if (unsupported) return twilioError(res, 400, 20001, `${unsupported} is not supported by the Twilio simulator`);
    const areaCode = query.get("AreaCode") ?? undefined;
    if (areaCode !== undefined && !/^\d{3}$/.test(areaCode)) return twilioError(res, 400, 21451, `Invalid area code: ${areaCode}`);
    const contains = query.has("Contains") ? containsPattern(query.get("Contains")!) : null;
    if (query.has("Contains") && !contains) return twilioError(res, 400, 20001, `Contains must be 2 to 16 digits, letters and the wildcards * and %, not ${query.get("Contains")}`);
    const wanted = (name: string): boolean | null => (query.has(name) ? query.get(name)!.toLowerCase() === "true" : null);
    const capabilities = { voice: wanted("VoiceEnabled"), sms: wanted("SmsEnabled"), mms: wanted("MmsEnabled"), fax: wanted("FaxEnabled") };
    const region = query.get("InRegion")?.toUpperCase();
    const locality = query.get("InLocality")?.toLowerCase();
    const addressFree = wanted("ExcludeAllAddressRequired") === true || wanted("ExcludeLocalAddressRequired") === true;
    const pageSize = Math.min(1000, Math.max(1, Number.parseInt(query.get("PageSize") ?? "50", 10) || 50));
    const found: InventoryNumber[] = [];
    const held = this.heldNumbers();
    const stock = country === "GB" || !areaCode || isGeographicAreaCode(country, areaCode) ? inventoryOf(country, { areaCode, region }) : [];
    for (const candidate of stock) {
      if (found.length >= pageSize) break;
      if (held.has(candidate.phoneNumber)) continue;
      if (contains && !contains(candidate.phoneNumber)) continue;
      if (locality && candidate.locality?.toLowerCase() !== locality) continue;
      if (addressFree && candidate.addressRequirements !== "none") continue;
      if ((Object.keys(capabilities) as Array<keyof typeof capabilities>).some((key) => capabilities[key] !== null && candidate[key] !== capabilities[key])) continue;
      found.push(candidate);
    }
    const uri = `${this.base}/AvailablePhoneNumbers/${country}/Local.json${url.search}`;
    return json(res, 200, {
      available_phone_numbers: found.map((number) => ({
        friendly_name: number.friendlyName,
        phone_number: number.phoneNumber,
        lata: null,
        locality: number.locality,
        rate_center: number.rateCenter,
        latitude: number.latitude === null ? null : number.latitude.toFixed(6),
        longitude: number.longitude === null ? null : number.longitude.toFixed(6),
        region: number.region,
        postal_code: null,
        iso_country: number.isoCountry,
        address_requirements: number.addressRequirements,
        beta: false,
        capabilities: { voice: number.voice, SMS: number.sms, MMS: number.mms, fax: number.fax },
      })),
      end: Math.max(0, found.length - 1),
      first_page_uri: uri,
      next_page_uri: null,
      page: 0,
      page_size: pageSize,
      previous_page_uri: null,
      start: 0,
      uri,
    });
  }

  private buy(res: ServerResponse, form: URLSearchParams): number {
    const requested = form.get("PhoneNumber");
    const areaCode = form.get("AreaCode");
    let stock: InventoryNumber | null = null;
    if (requested) {
      if (!E164.test(requested)) return twilioError(res, 400, 21421, `PhoneNumber ${requested} is invalid`);
      stock = this.find(requested) ? null : findInInventory(requested);
      if (!stock) return twilioError(res, 400, 21422, `PhoneNumber ${requested} is not available`);
    } else if (areaCode) {
      const country = /^\d{3}$/.test(areaCode) ? (locateNumber(`+1${areaCode}5550100`).country ?? "") : "";
      if (!isGeographicAreaCode(country, areaCode)) return twilioError(res, 400, 21451, `Invalid area code: ${areaCode}`);
      const held = this.heldNumbers();
      for (const candidate of inventoryOf(country, { areaCode })) {
        if (!held.has(candidate.phoneNumber)) {
          stock = candidate;
          break;
        }
      }
      if (!stock) return twilioError(res, 400, 21452, `No phone numbers found in area code ${areaCode}`);
    } else {
      return twilioError(res, 400, 21421, "A PhoneNumber or an AreaCode is required");
    }
    const number = this.create(stock.phoneNumber, stock, "bought");
    const problem = this.configure(number, form);
    if (problem) return problem(res);
    this.incoming.set(number.sid, number);
    return json(res, 201, this.toJson(number));
  }

  private list(res: ServerResponse, url: URL): number {
    const pattern = url.searchParams.get("PhoneNumber");
    const matches = pattern ? containsPattern(pattern.replace(/[^0-9A-Za-z*+]/g, "")) : null;
    const friendlyName = url.searchParams.get("FriendlyName");
    const numbers = [...this.incoming.values()].filter((number) => (!pattern || (matches ? matches(number.phoneNumber) : number.phoneNumber === pattern)) && (!friendlyName || number.friendlyName === friendlyName));
    return json(res, 200, listPage(url, `${this.base}/IncomingPhoneNumbers.json`, "incoming_phone_numbers", numbers.map((number) => this.toJson(number))));
  }

  /** Not registered yet: `buy` registers it once its webhooks passed validation; `addAccountNumber` at once. */
  private create(phoneNumber: string, stock: InventoryNumber | null, source: SimIncomingNumber["source"]): SimIncomingNumber {
    const now = new Date();
    const number: SimIncomingNumber = {
      sid: `PN${randomBytes(16).toString("hex")}`,
      phoneNumber,
      friendlyName: stock?.friendlyName ?? phoneNumber,
      voice: stock?.voice ?? true,
      sms: stock?.sms ?? true,
      mms: stock?.mms ?? true,
      fax: stock?.fax ?? false,
      voiceUrl: "",
      voiceMethod: "POST",
      voiceFallbackUrl: "",
      voiceFallbackMethod: "POST",
      statusCallback: "",
      statusCallbackMethod: "POST",
      smsUrl: "",
      smsMethod: "POST",
      smsFallbackUrl: "",
      smsFallbackMethod: "POST",
      voiceCallerIdLookup: false,
      addressRequirements: stock?.addressRequirements ?? "none",
      source,
      createdAt: now,
      updatedAt: now,
    };
    if (source === "seeded") this.incoming.set(number.sid, number);
    return number;
  }

  /** Applies the form's webhooks and name; a writer of the error answer when one is invalid (nothing applied then). */
  private configure(number: SimIncomingNumber, form: URLSearchParams): ((res: ServerResponse) => number) | null {
    for (const field of Object.keys(URL_FIELDS) as Array<keyof typeof URL_FIELDS>) {
      const value = form.get(field);
      if (value && !isCallbackUrl(value)) return (res) => twilioError(res, 400, 21502, `Invalid callback url: ${field} ${value}`);
    }
    for (const field of Object.keys(METHOD_FIELDS) as Array<keyof typeof METHOD_FIELDS>) {
      const value = form.get(field);
      if (value && !/^(GET|POST)$/i.test(value)) return (res) => twilioError(res, 400, 20001, `${field} must be GET or POST, not ${value}`);
    }
    for (const field of Object.keys(URL_FIELDS) as Array<keyof typeof URL_FIELDS>) if (form.has(field)) number[URL_FIELDS[field]] = form.get(field)!;
    for (const field of Object.keys(METHOD_FIELDS) as Array<keyof typeof METHOD_FIELDS>) if (form.get(field)) number[METHOD_FIELDS[field]] = form.get(field)!.toUpperCase();
    if (form.get("FriendlyName")) number.friendlyName = form.get("FriendlyName")!.slice(0, 64);
    if (form.has("VoiceCallerIdLookup")) number.voiceCallerIdLookup = form.get("VoiceCallerIdLookup")!.toLowerCase() === "true";
    return null;
  }

  toJson(number: SimIncomingNumber) {
    const uri = `${this.base}/IncomingPhoneNumbers/${number.sid}.json`;
    return {
      account_sid: this.accountSid,
      address_requirements: number.addressRequirements,
      address_sid: null,
      api_version: "2010-04-01",
      beta: false,
      bundle_sid: null,
      capabilities: { voice: number.voice, sms: number.sms, mms: number.mms, fax: number.fax },
      date_created: rfc2822(number.createdAt),
      date_updated: rfc2822(number.updatedAt),
      emergency_address_sid: null,
      emergency_address_status: "unregistered",
      emergency_status: "Inactive",
      friendly_name: number.friendlyName,
      identity_sid: null,
      origin: "twilio",
      phone_number: number.phoneNumber,
      sid: number.sid,
      sms_application_sid: "",
      sms_fallback_method: number.smsFallbackMethod,
      sms_fallback_url: number.smsFallbackUrl,
      sms_method: number.smsMethod,
      sms_url: number.smsUrl,
      status: "in-use",
      status_callback: number.statusCallback,
      status_callback_method: number.statusCallbackMethod,
      subresource_uris: { assigned_add_ons: uri.replace(".json", "/AssignedAddOns.json") },
      trunk_sid: null,
      type: "local",
      uri,
      voice_application_sid: "",
      voice_caller_id_lookup: number.voiceCallerIdLookup,
      voice_fallback_method: number.voiceFallbackMethod,
      voice_fallback_url: number.voiceFallbackUrl,
      voice_method: number.voiceMethod,
      voice_receive_mode: "voice",
      voice_url: number.voiceUrl,
    };
  }
}
