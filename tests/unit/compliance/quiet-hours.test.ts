import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { locateNumber } from "@/server/services/compliance/area-code-regions";
import { COUNTRY_RULES, FEDERAL_RULE, STATE_RULES } from "@/server/services/compliance/calling-rules";
import { formatCallingRuleRow } from "@/server/services/compliance/calling-rules-table";
import { federalHolidays } from "@/server/services/compliance/holidays";
import { attemptsAllowed, callingRulesFor, isCallAllowedAt, nextAllowedTime } from "@/server/services/compliance/quiet-hours";

const NY = "America/New_York";
const CHICAGO = "America/Chicago";
const at = (iso: string) => new Date(iso);
const next = (iso: string, phoneNumber: string, timezone: string) => nextAllowedTime(at(iso), { phoneNumber, timezone })?.toISOString();

// Area codes used below: 212 New York (federal rule only), 214 Dallas TX, 215 Philadelphia PA, 401 Rhode Island,
// 305 Miami FL, 207 Maine, 416 Toronto ON, 800 toll-free.
describe("locateNumber (NPA → state table)", () => {
  it("derives the US state or Canadian province from the area code", () => {
    expect(locateNumber("+12125550100")).toEqual({ country: "US", regions: ["US-NY"], areaCode: "212" });
    expect(locateNumber("+12145550100").regions).toEqual(["US-TX"]);
    expect(locateNumber("+13055550100").regions).toEqual(["US-FL"]);
    expect(locateNumber("+14165550100")).toEqual({ country: "CA", regions: ["CA-ON"], areaCode: "416" });
  });

  it("gives no state to non-geographic NPAs, other NANP countries and non-NANP numbers", () => {
    expect(locateNumber("+18005550100")).toEqual({ country: "US", regions: [], areaCode: "800" });
    expect(locateNumber("+17875550100")).toEqual({ country: "PR", regions: [], areaCode: "787" });
    expect(locateNumber("+442071838750")).toEqual({ country: "GB", regions: [], areaCode: null });
  });

  it("covers every US state and DC", () => {
    const table = JSON.parse(readFileSync(path.resolve("server/services/compliance/data/nanp-area-codes.json"), "utf8")) as {
      areaCodes: Record<string, { country: string; regions: string[] }>;
    };
    const states = new Set(Object.values(table.areaCodes).filter((entry) => entry.country === "US").flatMap((entry) => entry.regions));
    expect(states.size).toBe(51);
  });
});

describe("nextAllowedTime", () => {
  it("moves a call due at 7:30 local in a federal-only state to 8:00, and leaves one inside the window alone", () => {
    // Tue 2026-11-24, New York is UTC-5.
    expect(next("2026-11-24T12:30:00Z", "+12125550100", NY)).toBe("2026-11-24T13:00:00.000Z");
    expect(next("2026-11-24T15:00:00Z", "+12125550100", NY)).toBe("2026-11-24T15:00:00.000Z");
    expect(isCallAllowedAt(at("2026-11-24T15:00:00Z"), { phoneNumber: "+12125550100", timezone: NY })).toBe(true);
    expect(isCallAllowedAt(at("2026-11-24T12:30:00Z"), { phoneNumber: "+12125550100", timezone: NY })).toBe(false);
  });

  it("moves a call due at 7:30 local in a stricter state to that state's opening", () => {
    // Texas opens at 9:00 on weekdays (Chicago is UTC-6 on 2026-11-24) and at noon on Sundays.
    expect(next("2026-11-24T13:30:00Z", "+12145550100", CHICAGO)).toBe("2026-11-24T15:00:00.000Z");
    expect(next("2026-11-29T13:30:00Z", "+12145550100", CHICAGO)).toBe("2026-11-29T18:00:00.000Z");
  });

  it("moves a call after closing to the next day's opening (9 p.m. federal, 8 p.m. Florida)", () => {
    expect(next("2026-11-24T02:30:00Z", "+12125550100", NY)).toBe("2026-11-24T13:00:00.000Z"); // 21:30 Mon
    expect(next("2026-11-25T01:30:00Z", "+13055550100", NY)).toBe("2026-11-25T13:00:00.000Z"); // 20:30 Tue
    expect(next("2026-11-25T00:59:00Z", "+13055550100", NY)).toBe("2026-11-25T00:59:00.000Z"); // 19:59 Tue
  });

  it("skips closed days: Rhode Island on Sundays, Pennsylvania on federal holidays", () => {
    // Sun 2026-11-29 10:00 in Rhode Island → Mon 9:00.
    expect(next("2026-11-29T15:00:00Z", "+14015550100", NY)).toBe("2026-11-30T14:00:00.000Z");
    // Thanksgiving (Thu 2026-11-26) in Pennsylvania → Fri 8:00; New York calls that day as usual.
    expect(next("2026-11-26T15:00:00Z", "+12155550100", NY)).toBe("2026-11-27T13:00:00.000Z");
    expect(next("2026-11-26T15:00:00Z", "+12125550100", NY)).toBe("2026-11-26T15:00:00.000Z");
  });

  it("applies Canada's weekend hours to Canadian numbers", () => {
    // Sat 2026-11-28 9:30 in Toronto → 10:00.
    expect(next("2026-11-28T14:30:00Z", "+14165550100", "America/Toronto")).toBe("2026-11-28T15:00:00.000Z");
  });

  it("uses the contact's timezone, not the area code's", () => {
    // A 212 number whose contact lives in Los Angeles: 8:00 Pacific.
    expect(next("2026-11-24T14:00:00Z", "+12125550100", "America/Los_Angeles")).toBe("2026-11-24T16:00:00.000Z");
  });

  describe("across DST changes (wall-clock windows)", () => {
    it("spring forward: 8:00 EST on Saturday, 8:00 EDT on Sunday", () => {
      // 2026-03-08 is the US spring-forward Sunday (2:00 → 3:00).
      expect(next("2026-03-07T12:30:00Z", "+12125550100", NY)).toBe("2026-03-07T13:00:00.000Z");
      // Saturday 22:00 EST → Sunday 8:00 EDT (12:00Z): the night is an hour shorter.
      expect(next("2026-03-08T03:00:00Z", "+12125550100", NY)).toBe("2026-03-08T12:00:00.000Z");
      // Sunday 20:59 EDT is still allowed, 21:00 EDT is not.
      expect(next("2026-03-09T00:59:00Z", "+12125550100", NY)).toBe("2026-03-09T00:59:00.000Z");
      expect(next("2026-03-09T01:00:00Z", "+12125550100", NY)).toBe("2026-03-09T12:00:00.000Z");
    });

    it("fall back: 8:00 EDT on Saturday, 8:00 EST on Sunday", () => {
      // 2026-11-01 is the US fall-back Sunday (2:00 → 1:00).
      expect(next("2026-10-31T11:30:00Z", "+12125550100", NY)).toBe("2026-10-31T12:00:00.000Z");
      // Sunday 1:30 (the first, EDT one) → 8:00 EST (13:00Z).
      expect(next("2026-11-01T05:30:00Z", "+12125550100", NY)).toBe("2026-11-01T13:00:00.000Z");
      // 7:30 EST (12:30Z) is outside; before the change the same UTC instant was 8:30 EDT.
      expect(next("2026-11-01T12:30:00Z", "+12125550100", NY)).toBe("2026-11-01T13:00:00.000Z");
    });

    it("Texas Sunday noon opening on the spring-forward day", () => {
      expect(next("2026-03-08T15:00:00Z", "+12145550100", CHICAGO)).toBe("2026-03-08T17:00:00.000Z");
    });
  });

  it("refuses an invalid timezone", () => {
    expect(() => nextAllowedTime(at("2026-11-24T12:00:00Z"), { phoneNumber: "+12125550100", timezone: "Mars/Base" })).toThrow(/IANA/);
  });
});

describe("callingRulesFor", () => {
  it("always includes the federal rule, plus the state's and the country's", () => {
    expect(callingRulesFor({ phoneNumber: "+12125550100", timezone: NY }).rules.map((rule) => rule.jurisdiction)).toEqual(["US"]);
    expect(callingRulesFor({ phoneNumber: "+12145550100", timezone: CHICAGO }).rules.map((rule) => rule.jurisdiction)).toEqual(["US", "US-TX"]);
    expect(callingRulesFor({ phoneNumber: "+14165550100", timezone: "America/Toronto" }).rules.map((rule) => rule.jurisdiction)).toEqual(["US", "CA"]);
    expect(callingRulesFor({ phoneNumber: "+442071838750", timezone: "Europe/London" }).rules.map((rule) => rule.jurisdiction)).toEqual(["US"]);
  });
});

describe("attemptsAllowed", () => {
  const florida = { phoneNumber: "+13055550100", timezone: NY };
  const hoursBefore = (base: string, hours: number) => new Date(new Date(base).getTime() - hours * 3_600_000);

  it("has no cap in a state without one", () => {
    const decision = attemptsAllowed({ contact: { phoneNumber: "+12125550100", timezone: NY }, at: at("2026-11-24T15:00:00Z"), previousAttempts: [at("2026-11-24T14:00:00Z"), at("2026-11-24T14:30:00Z"), at("2026-11-24T14:45:00Z")] });
    expect(decision).toEqual({ allowed: true, cap: null, used: 0, nextAllowedAt: null });
  });

  it("allows the third attempt in 24 h in Florida and refuses the fourth until the first leaves the period", () => {
    const now = "2026-11-24T18:00:00Z";
    const two = [hoursBefore(now, 20), hoursBefore(now, 2)];
    expect(attemptsAllowed({ contact: florida, at: at(now), previousAttempts: two })).toMatchObject({ allowed: true, used: 2, cap: { maxAttempts: 3, perHours: 24, jurisdiction: "US-FL" } });
    const three = [hoursBefore(now, 20), hoursBefore(now, 5), hoursBefore(now, 2)];
    const refused = attemptsAllowed({ contact: florida, at: at(now), previousAttempts: three });
    expect(refused.allowed).toBe(false);
    expect(refused.used).toBe(3);
    expect(refused.nextAllowedAt?.toISOString()).toBe("2026-11-24T22:00:00.000Z");
    // Attempts older than 24 h do not count.
    expect(attemptsAllowed({ contact: florida, at: at(now), previousAttempts: [hoursBefore(now, 30), hoursBefore(now, 25), hoursBefore(now, 5), hoursBefore(now, 2)] }).allowed).toBe(true);
  });

  it("Maine: one automated call per 8 hours", () => {
    const maine = { phoneNumber: "+12075550100", timezone: NY };
    const now = "2026-11-24T18:00:00Z";
    const refused = attemptsAllowed({ contact: maine, at: at(now), previousAttempts: [hoursBefore(now, 3)] });
    expect(refused).toMatchObject({ allowed: false, used: 1, cap: { jurisdiction: "US-ME" } });
    expect(refused.nextAllowedAt?.toISOString()).toBe("2026-11-24T23:00:00.000Z");
  });
});

describe("federalHolidays", () => {
  it("lists the eleven holidays with observed days", () => {
    const days = [...federalHolidays(2026)].sort();
    // July 4 2026 is a Saturday: observed Friday July 3.
    expect(days).toEqual([
      "2026-01-01", "2026-01-19", "2026-02-16", "2026-05-25", "2026-06-19", "2026-07-03", "2026-07-04",
      "2026-09-07", "2026-10-12", "2026-11-11", "2026-11-26", "2026-12-25",
    ]);
    // New Year's Day 2028 is a Saturday: observed Friday 2027-12-31.
    expect(federalHolidays(2027).has("2027-12-31")).toBe(true);
  });
});

describe("docs/compliance.md", () => {
  it("shows every rule of the table, row for row", () => {
    const doc = readFileSync(path.resolve("docs/compliance.md"), "utf8");
    for (const rule of [FEDERAL_RULE, ...Object.values(COUNTRY_RULES), ...Object.values(STATE_RULES)]) {
      expect(doc).toContain(formatCallingRuleRow(rule));
    }
  });
});
