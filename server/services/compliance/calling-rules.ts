/**
 * Calling-hours rules as data: the federal window and the jurisdictions that are stricter. Every rule says when a call
 * may be placed in the called person's local time, whether legal holidays are closed, and how many attempts a number
 * may get in a rolling period. docs/compliance.md shows this table to integrators and compliance officers (a test
 * keeps the two in step); change both together.
 *
 * Compiled in November 2026 from the statutes as cited by public compliance references (DropCowboy "State Calling
 * Restrictions Guide", Nov 2025; ClickPoint "Telemarketing Calling Restrictions & Hours by State", Jul 2025; Stello
 * state table, Apr 2026) and the CRTC rules. Where those references disagree, the stricter reading is kept. An AI voice
 * is an artificial voice (FCC declaratory ruling FCC 24-17, Feb 2024), so state limits on automatic dialing-announcing
 * devices and prerecorded/synthesized voice calls (California, Illinois, Michigan, Minnesota) are applied too. Not
 * legal advice: counsel should review it.
 */

/** Minutes after local midnight: calls from `start` (inclusive) to `end` (exclusive). */
export type DayWindow = { start: number; end: number };

export type AttemptCap = { maxAttempts: number; perHours: number };

export type CallingRule = {
  /** `US` (federal), `US-FL` (a state), `CA` (Canada, national). */
  jurisdiction: string;
  name: string;
  /** Monday first (index 0) to Sunday (index 6); null: no calls that day. */
  week: readonly [DayWindow | null, DayWindow | null, DayWindow | null, DayWindow | null, DayWindow | null, DayWindow | null, DayWindow | null];
  /** No calls on legal holidays (the US federal holidays and their observed days; see holidays.ts). */
  closedOnHolidays: boolean;
  /** At most `maxAttempts` calls to the number within any `perHours` hours. */
  attemptCap: AttemptCap | null;
  citations: readonly string[];
  notes?: string;
};

const hours = (start: number, end: number): DayWindow => ({ start: start * 60, end: end * 60 });
const everyDay = (window: DayWindow): CallingRule["week"] => [window, window, window, window, window, window, window];
/** Monday–Saturday `window`, Sunday `sunday`. */
const monToSat = (window: DayWindow, sunday: DayWindow | null): CallingRule["week"] => [window, window, window, window, window, window, sunday];

/** TCPA: no telephone solicitation before 8 a.m. or after 9 p.m. local time at the called party's location. */
export const FEDERAL_RULE: CallingRule = {
  jurisdiction: "US",
  name: "United States (federal)",
  week: everyDay(hours(8, 21)),
  closedOnHolidays: false,
  attemptCap: null,
  citations: ["47 CFR § 64.1200(c)(1) (TCPA)", "16 CFR § 310.4(c) (Telemarketing Sales Rule)"],
  notes: "Applied to every number, whatever its country.",
};

export const COUNTRY_RULES: Readonly<Record<string, CallingRule>> = {
  CA: {
    jurisdiction: "CA",
    name: "Canada",
    week: [hours(9, 21.5), hours(9, 21.5), hours(9, 21.5), hours(9, 21.5), hours(9, 21.5), hours(10, 18), hours(10, 18)],
    closedOnHolidays: false,
    attemptCap: null,
    citations: ["CRTC Unsolicited Telecommunications Rules, Part III (Telemarketing Rules), s. 34"],
  },
};

export const STATE_RULES: Readonly<Record<string, CallingRule>> = {
  "US-AL": {
    jurisdiction: "US-AL",
    name: "Alabama",
    week: monToSat(hours(8, 20), null),
    closedOnHolidays: true,
    attemptCap: null,
    citations: ["Ala. Code § 8-19A (Alabama Telemarketing Act)", "Ala. Admin. Code r. 770-X-5-.17", "Ala. Code § 1-3-8 (holidays)"],
  },
  "US-CA": {
    jurisdiction: "US-CA",
    name: "California",
    week: everyDay(hours(9, 21)),
    closedOnHolidays: false,
    attemptCap: null,
    citations: ["Cal. Pub. Util. Code § 2872(c) (automatic dialing-announcing devices)"],
  },
  "US-CT": {
    jurisdiction: "US-CT",
    name: "Connecticut",
    week: everyDay(hours(9, 20)),
    closedOnHolidays: false,
    attemptCap: null,
    citations: ["Conn. Gen. Stat. § 42-288a, as amended by P.A. 23-98 (SB 1058), effective Oct 1, 2023"],
  },
  "US-FL": {
    jurisdiction: "US-FL",
    name: "Florida",
    week: everyDay(hours(8, 20)),
    closedOnHolidays: false,
    attemptCap: { maxAttempts: 3, perHours: 24 },
    citations: ["Fla. Stat. § 501.616(6)(a)–(b) (as amended by SB 1120, 2021)"],
    notes: "The cap is per person and subject matter: every call of the organization to the number counts.",
  },
  "US-IL": {
    jurisdiction: "US-IL",
    name: "Illinois",
    week: everyDay(hours(9, 21)),
    closedOnHolidays: false,
    attemptCap: null,
    citations: ["815 ILCS 305 (Automatic Telephone Dialers Act)"],
  },
  "US-KY": {
    jurisdiction: "US-KY",
    name: "Kentucky",
    week: everyDay(hours(10, 21)),
    closedOnHolidays: false,
    attemptCap: null,
    citations: ["KRS 367.46955"],
  },
  "US-LA": {
    jurisdiction: "US-LA",
    name: "Louisiana",
    week: monToSat(hours(8, 20), null),
    closedOnHolidays: true,
    attemptCap: null,
    citations: ["La. R.S. 45:844.11 et seq. (Telephone Solicitation Relief Act) and Louisiana PSC rules"],
  },
  "US-MA": {
    jurisdiction: "US-MA",
    name: "Massachusetts",
    week: everyDay(hours(8, 20)),
    closedOnHolidays: false,
    attemptCap: null,
    citations: ["M.G.L. c. 159C § 3", "201 CMR 12.00"],
  },
  "US-MD": {
    jurisdiction: "US-MD",
    name: "Maryland",
    week: everyDay(hours(8, 20)),
    closedOnHolidays: false,
    attemptCap: { maxAttempts: 3, perHours: 24 },
    citations: ["Maryland Stop the Spam Calls Act of 2023 (SB 90), Md. Code, Com. Law § 14-4501 et seq."],
  },
  "US-ME": {
    jurisdiction: "US-ME",
    name: "Maine",
    week: everyDay(hours(8, 21)),
    closedOnHolidays: false,
    attemptCap: { maxAttempts: 1, perHours: 8 },
    citations: ["Maine limit on automated calls: one per number per 8 hours (as compiled by the references above; statute to be confirmed by counsel)"],
  },
  "US-MI": {
    jurisdiction: "US-MI",
    name: "Michigan",
    week: everyDay(hours(9, 21)),
    closedOnHolidays: false,
    attemptCap: null,
    citations: ["Michigan limits on prerecorded/artificial voice calls (as compiled by the references above)"],
  },
  "US-MN": {
    jurisdiction: "US-MN",
    name: "Minnesota",
    week: everyDay(hours(9, 21)),
    closedOnHolidays: false,
    attemptCap: null,
    citations: ["Minn. Stat. § 325E.27 (prerecorded or synthesized voice messages)"],
  },
  "US-MS": {
    jurisdiction: "US-MS",
    name: "Mississippi",
    week: monToSat(hours(8, 20), null),
    closedOnHolidays: true,
    attemptCap: null,
    citations: ["Miss. Code Ann. § 77-3-725", "Miss. Code Ann. § 3-3-7 (holidays)"],
  },
  "US-NM": {
    jurisdiction: "US-NM",
    name: "New Mexico",
    week: everyDay(hours(9, 21)),
    closedOnHolidays: false,
    attemptCap: null,
    citations: ["N.M. Stat. § 57-12-22"],
  },
  "US-NV": {
    jurisdiction: "US-NV",
    name: "Nevada",
    week: everyDay(hours(9, 20)),
    closedOnHolidays: false,
    attemptCap: null,
    citations: ["Nev. Rev. Stat. ch. 597 / ch. 228 telephone solicitation provisions (as compiled by the references above)"],
  },
  "US-OK": {
    jurisdiction: "US-OK",
    name: "Oklahoma",
    week: everyDay(hours(8, 20)),
    closedOnHolidays: false,
    attemptCap: { maxAttempts: 3, perHours: 24 },
    citations: ["Okla. Stat. tit. 15, § 775C.4 (Telephone Solicitation Act of 2022)"],
  },
  "US-PA": {
    jurisdiction: "US-PA",
    name: "Pennsylvania",
    week: monToSat(hours(8, 21), hours(13.5, 21)),
    closedOnHolidays: true,
    attemptCap: null,
    citations: ["73 P.S. § 2241 et seq. (Telemarketer Registration Act)"],
  },
  "US-RI": {
    jurisdiction: "US-RI",
    name: "Rhode Island",
    week: [hours(9, 18), hours(9, 18), hours(9, 18), hours(9, 18), hours(9, 18), hours(10, 17), null],
    closedOnHolidays: true,
    attemptCap: null,
    citations: ["R.I. Gen. Laws § 5-61-3.4"],
  },
  "US-TX": {
    jurisdiction: "US-TX",
    name: "Texas",
    week: monToSat(hours(9, 21), hours(12, 21)),
    closedOnHolidays: false,
    attemptCap: null,
    citations: ["Tex. Bus. & Com. Code § 301.051"],
  },
  "US-UT": {
    jurisdiction: "US-UT",
    name: "Utah",
    week: monToSat(hours(8, 21), null),
    closedOnHolidays: true,
    attemptCap: null,
    citations: ["Utah Code § 13-25a-103"],
  },
  "US-WA": {
    jurisdiction: "US-WA",
    name: "Washington",
    week: everyDay(hours(8, 20)),
    closedOnHolidays: false,
    attemptCap: null,
    citations: ["RCW 80.36.390"],
  },
};
