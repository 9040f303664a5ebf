import { parsePhoneNumberFromString, type PhoneNumber } from "libphonenumber-js";

export type NormalizedPhoneNumber = {
  /** E.164, e.g. `+14155550171`. */
  e164: string;
  /** Extension written into the number itself (`… ext. 12`), if any. */
  extension: string | null;
  parsed: PhoneNumber;
};

/**
 * Numbers without a country code are read as North American (NANP) numbers: `(415) 555-0171` and
 * `+1 415-555-0171` are the same contact. The result is null for anything libphonenumber does not
 * consider a valid number.
 */
export const DEFAULT_PHONE_COUNTRY = "US";

export function normalizePhoneNumber(raw: string): NormalizedPhoneNumber | null {
  const trimmed = raw.trim();
  if (!trimmed || trimmed.length > 64) return null;
  // `00` international prefix → `+`
  const input = trimmed.startsWith("00") ? `+${trimmed.slice(2)}` : trimmed;
  const parsed = parsePhoneNumberFromString(input, DEFAULT_PHONE_COUNTRY);
  if (!parsed || !parsed.isValid()) return null;
  return { e164: parsed.number, extension: parsed.ext ?? null, parsed };
}
