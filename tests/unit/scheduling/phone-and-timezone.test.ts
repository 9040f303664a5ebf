import { parsePhoneNumberFromString } from "libphonenumber-js";
import { timezones as libraryTimezones } from "libphonenumber-geo-carrier";
import { describe, expect, it } from "vitest";
import { normalizePhoneNumber } from "@/server/services/phone/normalize-phone-number";
import { canonicalTimezone, inferTimezone, timezonesForNumber } from "@/server/services/phone/timezones";

describe("normalizePhoneNumber", () => {
  it("normalizes differently formatted forms of one number to the same E.164", () => {
    const forms = ["+14155550171", "+1 (415) 555-0171", "+1 415.555.0171", "(415) 555-0171", "415-555-0171", "001 415 555 0171", " +1-415-555-0171 "];
    for (const form of forms) expect(normalizePhoneNumber(form)?.e164, form).toBe("+14155550171");
  });

  it("keeps an extension written into the number", () => {
    expect(normalizePhoneNumber("+1 415 555 0171 ext. 12")).toMatchObject({ e164: "+14155550171", extension: "12" });
  });

  it("accepts international numbers and refuses invalid ones", () => {
    expect(normalizePhoneNumber("+447911123456")?.e164).toBe("+447911123456");
    expect(normalizePhoneNumber("+49 30 12345678")?.e164).toBe("+493012345678");
    for (const bad of ["", "abc", "12345", "+1415555017", "+999123456789", "+1 (000) 555-0171"]) expect(normalizePhoneNumber(bad), bad).toBeNull();
  });
});

describe("canonicalTimezone", () => {
  it("accepts IANA names in any case and refuses the rest", () => {
    expect(canonicalTimezone("America/New_York")).toBe("America/New_York");
    expect(canonicalTimezone("america/new_york")).toBe("America/New_York");
    expect(canonicalTimezone("UTC")).toBe("UTC");
    for (const bad of ["", "Mars/Olympus", "+05:00", "5", "Not a zone"]) expect(canonicalTimezone(bad), bad).toBeNull();
  });
});

describe("timezone inference from the number", () => {
  async function infer(number: string, agentTimezone?: string) {
    return inferTimezone(normalizePhoneNumber(number)!.parsed, { agentTimezone, now: new Date("2026-06-01T00:00:00Z") });
  }

  it("maps area codes to their zones", async () => {
    expect(await infer("+12125550123")).toBe("America/New_York");
    expect(await infer("+12015550123")).toBe("America/New_York");
    expect(await infer("+14155550171")).toBe("America/Los_Angeles");
    expect(await infer("+13035550100")).toBe("America/Denver");
    expect(await infer("+17205550100")).toBe("America/Denver");
    expect(await infer("+16025550100")).toBe("America/Phoenix");
    expect(await infer("+18085550100")).toBe("Pacific/Honolulu");
    expect(await infer("+493012345678")).toBe("Europe/Berlin");
    expect(await infer("+61291234567")).toBe("Australia/Sydney");
  });

  it("settles multi-zone prefixes by country, by the agent's zone, or not at all", async () => {
    // a GB mobile prefix lists Guernsey and the Isle of Man too; a Guernsey number keeps Guernsey
    expect(await infer("+447400123456")).toBe("Europe/London");
    expect(await infer("+447911123456")).toBe("Europe/Guernsey");
    expect(await infer("+442079460123")).toBe("Europe/London");
    // Alaska's prefix spans two zones with different clocks
    expect(await infer("+19075550100")).toBeNull();
    expect(await infer("+19075550100", "America/Anchorage")).toBe("America/Anchorage");
    // toll-free: the whole continent
    expect(await infer("+18005550100")).toBeNull();
  });

  it("gives the same zones as libphonenumber-geo-carrier's own timezones()", async () => {
    for (const number of ["+12125550123", "+14155550171", "+19075550100", "+447911123456", "+61291234567", "+18005550100", "+5511987654321", "+81312345678"]) {
      const parsed = parsePhoneNumberFromString(number)!;
      const expected = ((await libraryTimezones(parsed)) ?? []).map((zone) => canonicalTimezone(zone)).filter(Boolean);
      expect(await timezonesForNumber(parsed), number).toEqual(expected);
    }
  });
});
