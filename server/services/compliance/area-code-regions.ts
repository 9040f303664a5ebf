import { parsePhoneNumberFromString } from "libphonenumber-js";
import data from "./data/nanp-area-codes.json";

/** Where a number is, as far as its digits tell: the country and, for US and Canadian numbers, the state(s) or province(s). */
export type NumberLocation = {
  /** ISO 3166-1 alpha-2 (`US`, `CA`, `PR`…), or null when the number cannot be parsed. */
  country: string | null;
  /** ISO 3166-2 subdivisions (`US-TX`, `CA-ON`): one for almost every area code; several when its prefixes span them; none for non-geographic NPAs (toll-free 8xx…) and other countries. */
  regions: string[];
  /** The area code of a North American (+1) number. */
  areaCode: string | null;
};

type AreaCodeTable = Record<string, { country: string; regions: string[] }>;
const areaCodes = data.areaCodes as AreaCodeTable;

/**
 * The country and US state / Canadian province of an E.164 number, from its area code (the table in
 * data/nanp-area-codes.json, built from libphonenumber's data by scripts/build-area-code-regions.ts). The area code
 * says where the number was assigned: a ported or mobile number may be used elsewhere, which is why the quiet-hours
 * rules also take the contact's own timezone.
 */
export function locateNumber(e164: string): NumberLocation {
  const match = /^\+1(\d{3})\d{7}$/.exec(e164);
  if (match) {
    const entry = areaCodes[match[1]!];
    if (entry) {
      const regions = entry.country === "US" || entry.country === "CA" ? entry.regions.map((region) => `${entry.country}-${region}`) : [];
      return { country: entry.country, regions, areaCode: match[1]! };
    }
    return { country: null, regions: [], areaCode: match[1]! };
  }
  return { country: parsePhoneNumberFromString(e164)?.country ?? null, regions: [], areaCode: null };
}

/**
 * Every North American area code in the table, in ascending order, with its country and its state(s) / province(s)
 * (subdivision codes without the country: `NY`; none for non-geographic NPAs). The Twilio simulator builds its
 * inventory of numbers for sale from it.
 */
export function listAreaCodes(): Array<{ areaCode: string; country: string; regions: string[] }> {
  return Object.entries(areaCodes)
    .map(([areaCode, entry]) => ({ areaCode, country: entry.country, regions: entry.regions }))
    .sort((a, b) => a.areaCode.localeCompare(b.areaCode));
}
