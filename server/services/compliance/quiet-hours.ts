import { DateTime, IANAZone } from "luxon";
import { locateNumber } from "./area-code-regions";
import { COUNTRY_RULES, FEDERAL_RULE, STATE_RULES, type AttemptCap, type CallingRule, type DayWindow } from "./calling-rules";
import { isFederalHoliday } from "./holidays";

/**
 * Quiet hours: when a contact may be called, independent of the agent's calling windows (which `bypassCallWindows`
 * skips; these are never skipped). Pure functions of the contact and an instant — the call engine asks them at
 * dial time (phase B wiring; see docs/compliance.md).
 *
 * The rules of a contact: the federal window (8:00–21:00) always, plus its country's (Canada) and its US state's
 * (derived from the area code; all of them, strictest wins, when the area code spans several). Local time is the
 * contact's timezone — the one enrollment stored (given, or inferred from the number) — evaluated wall-clock, so the
 * window stays 8:00–21:00 on both sides of a DST change.
 */
export type QuietHoursContact = {
  /** E.164. */
  phoneNumber: string;
  /** IANA timezone of the contact. */
  timezone: string;
};

export type ContactCallingRules = {
  country: string | null;
  /** ISO 3166-2 codes of the US state(s) / Canadian province(s) of the area code. */
  regions: string[];
  /** Every rule that applies, the federal one first. */
  rules: CallingRule[];
};

/** How far ahead `nextAllowedTime` looks (holiday weekends close at most a few days; this is a safety bound). */
const SEARCH_DAYS = 14;

export function callingRulesFor(contact: QuietHoursContact): ContactCallingRules {
  const location = locateNumber(contact.phoneNumber);
  const rules: CallingRule[] = [FEDERAL_RULE];
  const countryRule = location.country ? COUNTRY_RULES[location.country] : undefined;
  if (countryRule) rules.push(countryRule);
  for (const region of location.regions) {
    const stateRule = STATE_RULES[region];
    if (stateRule) rules.push(stateRule);
  }
  return { country: location.country, regions: location.regions, rules };
}

function zoneOf(contact: QuietHoursContact): IANAZone {
  const zone = IANAZone.create(contact.timezone);
  if (!zone.isValid) throw new Error(`quiet hours: ${JSON.stringify(contact.timezone)} is not an IANA timezone`);
  return zone;
}

/** The allowed window of one local day under every rule (intersection), or null when the day is closed. */
export function allowedWindowOn(localDay: DateTime, rules: readonly CallingRule[]): DayWindow | null {
  let start = 0;
  let end = 24 * 60;
  const holiday = isFederalHoliday(localDay.toISODate()!);
  for (const rule of rules) {
    if (holiday && rule.closedOnHolidays) return null;
    const window = rule.week[localDay.weekday - 1];
    if (!window) return null;
    start = Math.max(start, window.start);
    end = Math.min(end, window.end);
  }
  return start < end ? { start, end } : null;
}

/** A wall-clock minute of a local day as an instant (a time inside a spring-forward gap moves to the gap's end, as luxon does). */
function instantAt(localDay: DateTime, minutes: number): DateTime {
  return localDay.startOf("day").set({ hour: Math.floor(minutes / 60), minute: minutes % 60 });
}

/**
 * The first instant at or after `at` when the contact may be called: `at` itself when it is inside the day's allowed
 * window, else the next opening (a later window today, or the first open day after). Null only if nothing opens
 * within two weeks, which no table entry allows.
 */
export function nextAllowedTime(at: Date, contact: QuietHoursContact): Date | null {
  const zone = zoneOf(contact);
  const { rules } = callingRulesFor(contact);
  const start = DateTime.fromJSDate(at, { zone });
  for (let offset = 0; offset <= SEARCH_DAYS; offset += 1) {
    const day = start.startOf("day").plus({ days: offset });
    const window = allowedWindowOn(day, rules);
    if (!window) continue;
    const opens = instantAt(day, window.start);
    const closes = instantAt(day, window.end);
    if (offset === 0 && start >= closes) continue;
    return (offset === 0 && start >= opens ? start : opens).toJSDate();
  }
  return null;
}

export function isCallAllowedAt(at: Date, contact: QuietHoursContact): boolean {
  return nextAllowedTime(at, contact)?.getTime() === at.getTime();
}

export type AttemptsDecision = {
  allowed: boolean;
  /** The strictest cap that applies (fewest attempts per hour), with its jurisdiction; null when none does. */
  cap: (AttemptCap & { jurisdiction: string }) | null;
  /** Attempts within the cap's period before `at`. */
  used: number;
  /** When the next attempt is allowed by the cap (the oldest counted attempt leaves the period); null when allowed now. */
  nextAllowedAt: Date | null;
};

/**
 * Whether one more call may be placed at `at` given the number's earlier call attempts (dial times of every call of
 * the organization to this number: the caps count per person, not per sequence or agent). Every cap of the contact's
 * rules is checked; a number under several caps must satisfy all of them.
 */
export function attemptsAllowed(params: { contact: QuietHoursContact; at: Date; previousAttempts: readonly Date[] }): AttemptsDecision {
  const at = params.at.getTime();
  const decisions: AttemptsDecision[] = callingRulesFor(params.contact).rules.flatMap((rule) => {
    if (!rule.attemptCap) return [];
    const periodMs = rule.attemptCap.perHours * 3_600_000;
    const inPeriod = params.previousAttempts
      .map((attempt) => attempt.getTime())
      .filter((time) => time <= at && time > at - periodMs)
      .sort((a, b) => a - b);
    const allowed = inPeriod.length < rule.attemptCap.maxAttempts;
    // For one more attempt to fit, every attempt up to this one must have left the period.
    const blocking = inPeriod[inPeriod.length - rule.attemptCap.maxAttempts];
    return [
      {
        allowed,
        cap: { ...rule.attemptCap, jurisdiction: rule.jurisdiction },
        used: inPeriod.length,
        nextAllowedAt: allowed || blocking === undefined ? null : new Date(blocking + periodMs),
      },
    ];
  });
  if (decisions.length === 0) return { allowed: true, cap: null, used: 0, nextAllowedAt: null };
  const blocked = decisions.filter((decision) => !decision.allowed);
  // Blocked: the cap that frees up last decides. Allowed: report the strictest cap (fewest attempts per hour).
  if (blocked.length > 0) return blocked.reduce((a, b) => (b.nextAllowedAt! > a.nextAllowedAt! ? b : a));
  return decisions.reduce((a, b) => (b.cap!.maxAttempts / b.cap!.perHours < a.cap!.maxAttempts / a.cap!.perHours ? b : a));
}
