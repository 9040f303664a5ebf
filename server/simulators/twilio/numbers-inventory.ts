import { listAreaCodes } from "@/server/services/compliance/area-code-regions";

/**
 * The Twilio simulator's stock of local numbers for sale: a deterministic inventory the AvailablePhoneNumbers Local
 * search (https://www.twilio.com/docs/phone-numbers/api/availablephonenumberlocal-resource) reads and the
 * IncomingPhoneNumbers create buys from. Every number in it is fictional:
 * - US and Canada: `+1 NPA 555-0100` … `555-0199` for every geographic area code of the NANP table
 *   (server/services/compliance/data/nanp-area-codes.json; its first state or province is the number's `region`).
 *   555-0130 … 555-0139 are voice-only; the others carry voice, SMS and MMS.
 * - Great Britain: London's drama range `+44 20 7946 0000` … `0099` (Ofcom keeps it for fiction); voice-only, as
 *   British landlines are, with `address_requirements: "any"` (shown, not enforced).
 * A number is for sale unless the account holds it (bought, or added with `addAccountNumber`); a released number is
 * for sale again at once (Twilio ages it first; the simulator does not).
 */

export type InventoryNumber = {
  phoneNumber: string;
  friendlyName: string;
  isoCountry: string;
  /** The state or province code (`NY`), US and Canada only. */
  region: string | null;
  locality: string | null;
  rateCenter: string | null;
  latitude: number | null;
  longitude: number | null;
  addressRequirements: "none" | "any";
  voice: boolean;
  sms: boolean;
  mms: boolean;
  fax: boolean;
};

/** The countries the simulator sells local numbers in; any other country is Twilio's 404. */
export const INVENTORY_COUNTRIES = new Set(["US", "CA", "GB"]);

/** A few cities, so that the biggest area codes have a locality and coordinates as Twilio gives them. */
const CITIES: Record<string, [locality: string, latitude: number, longitude: number]> = {
  "201": ["Jersey City", 40.72, -74.07],
  "202": ["Washington", 38.9, -77.04],
  "206": ["Seattle", 47.61, -122.33],
  "212": ["New York", 40.71, -74.01],
  "213": ["Los Angeles", 34.05, -118.24],
  "214": ["Dallas", 32.78, -96.8],
  "303": ["Denver", 39.74, -104.99],
  "305": ["Miami", 25.76, -80.19],
  "312": ["Chicago", 41.88, -87.63],
  "404": ["Atlanta", 33.75, -84.39],
  "415": ["San Francisco", 37.77, -122.42],
  "416": ["Toronto", 43.65, -79.38],
  "503": ["Portland", 45.52, -122.68],
  "512": ["Austin", 30.27, -97.74],
  "514": ["Montreal", 45.5, -73.57],
  "602": ["Phoenix", 33.45, -112.07],
  "604": ["Vancouver", 49.28, -123.12],
  "617": ["Boston", 42.36, -71.06],
  "646": ["New York", 40.71, -74.01],
  "702": ["Las Vegas", 36.17, -115.14],
  "713": ["Houston", 29.76, -95.37],
  "720": ["Denver", 39.74, -104.99],
  "808": ["Honolulu", 21.31, -157.86],
  "917": ["New York", 40.71, -74.01],
};

type AreaCode = { areaCode: string; country: string; region: string };

let nanpAreaCodes: AreaCode[] | null = null;

/** Geographic US and Canadian area codes (toll-free and other non-geographic NPAs have no region and no local numbers). */
function geographicAreaCodes(): AreaCode[] {
  nanpAreaCodes ??= listAreaCodes()
    .filter((entry) => (entry.country === "US" || entry.country === "CA") && entry.regions.length > 0)
    .map((entry) => ({ areaCode: entry.areaCode, country: entry.country, region: entry.regions[0]! }));
  return nanpAreaCodes;
}

export function isGeographicAreaCode(country: string, areaCode: string): boolean {
  return geographicAreaCodes().some((entry) => entry.country === country && entry.areaCode === areaCode);
}

function nanpNumber(entry: AreaCode, line: number): InventoryNumber {
  const lineDigits = String(line).padStart(4, "0");
  const city = CITIES[entry.areaCode];
  const voiceOnly = Math.floor(line / 10) % 10 === 3;
  return {
    phoneNumber: `+1${entry.areaCode}555${lineDigits}`,
    friendlyName: `(${entry.areaCode}) 555-${lineDigits}`,
    isoCountry: entry.country,
    region: entry.region,
    locality: city?.[0] ?? null,
    rateCenter: city ? city[0].toUpperCase().replace(/\s+/g, "").slice(0, 10) : null,
    latitude: city?.[1] ?? null,
    longitude: city?.[2] ?? null,
    addressRequirements: "none",
    voice: true,
    sms: !voiceOnly,
    mms: !voiceOnly,
    fax: false,
  };
}

function londonNumber(line: number): InventoryNumber {
  const lineDigits = String(line).padStart(2, "0");
  return {
    phoneNumber: `+4420794600${lineDigits}`,
    friendlyName: `020 7946 00${lineDigits}`,
    isoCountry: "GB",
    region: null,
    locality: "London",
    rateCenter: null,
    latitude: 51.51,
    longitude: -0.13,
    addressRequirements: "any",
    voice: true,
    sms: false,
    mms: false,
    fax: false,
  };
}

/**
 * The country's stock in a fixed order (area code, then line), lazily; only `areaCode`'s, or `region`'s (a state or
 * province code), when given.
 */
export function* inventoryOf(country: string, filter: { areaCode?: string; region?: string } = {}): Generator<InventoryNumber> {
  if (country === "GB") {
    if (filter.areaCode || filter.region) return;
    for (let line = 0; line < 100; line += 1) yield londonNumber(line);
    return;
  }
  for (const entry of geographicAreaCodes()) {
    if (entry.country !== country || (filter.areaCode && entry.areaCode !== filter.areaCode) || (filter.region && entry.region !== filter.region)) continue;
    for (let line = 100; line < 200; line += 1) yield nanpNumber(entry, line);
  }
}

/** The inventory's entry for this number, whether or not it is for sale now. */
export function findInInventory(phoneNumber: string): InventoryNumber | null {
  const nanp = /^\+1(\d{3})555(01\d\d)$/.exec(phoneNumber);
  if (nanp) {
    const entry = geographicAreaCodes().find((candidate) => candidate.areaCode === nanp[1]);
    return entry ? nanpNumber(entry, Number(nanp[2])) : null;
  }
  const london = /^\+4420794600(\d\d)$/.exec(phoneNumber);
  return london ? londonNumber(Number(london[1])) : null;
}

const KEYPAD: Record<string, string> = { A: "2", B: "2", C: "2", D: "3", E: "3", F: "3", G: "4", H: "4", I: "4", J: "5", K: "5", L: "5", M: "6", N: "6", O: "6", P: "7", Q: "7", R: "7", S: "7", T: "8", U: "8", V: "8", W: "9", X: "9", Y: "9", Z: "9" };

/**
 * Twilio's `Contains` pattern as a test of an E.164 number: 2 to 16 characters, digits and letters (a letter is its
 * keypad digit, `STORM` = 78676), `*` any one digit, `%` any run of digits, a leading `+` anchors at the country code
 * and a trailing `$` at the end; otherwise the pattern may match anywhere in the number. Null when the pattern is not
 * one Twilio accepts.
 */
export function containsPattern(pattern: string): ((phoneNumber: string) => boolean) | null {
  if (pattern.length < 2 || pattern.length > 16 || !/^\+?[0-9A-Za-z*%]+\$?$/.test(pattern)) return null;
  const anchoredStart = pattern.startsWith("+");
  const anchoredEnd = pattern.endsWith("$");
  const body = pattern.slice(anchoredStart ? 1 : 0, anchoredEnd ? -1 : undefined);
  const source = [...body.toUpperCase()].map((char) => (char === "*" ? "\\d" : char === "%" ? "\\d*" : (KEYPAD[char] ?? char))).join("");
  const regex = new RegExp(`${anchoredStart ? "^" : ""}${source}${anchoredEnd ? "$" : ""}`);
  return (phoneNumber) => regex.test(phoneNumber.replace(/^\+/, ""));
}
