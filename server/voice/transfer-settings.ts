import { DateTime } from "luxon";
import type { TransferConfig, TransferTarget } from "@/db/schema/agents";

/**
 * An agent's hand-over settings (issue 26): the people a call may be transferred to, how (cold or warm), when a
 * person is there (hours), and what the agent offers instead when nobody can take the call. Stored as one JSON
 * document on the agent (`agents.transfer_config`); null = the agent never transfers.
 */
export const TRANSFER_MODES = ["cold", "warm"] as const;
export type TransferMode = (typeof TRANSFER_MODES)[number];

/** What the agent offers when the transfer is not possible or not answered. */
export const TRANSFER_FALLBACKS = ["book_meeting", "take_message", "callback"] as const;
export type TransferFallback = (typeof TRANSFER_FALLBACKS)[number];

export const MAX_TRANSFER_TARGETS = 10;
export const TRANSFER_LABEL_MAX_LENGTH = 60;
export const TRANSFER_WHEN_TO_USE_MAX_LENGTH = 500;
export const TRANSFER_HOURS_MAX_LENGTH = 200;
export const PHONE_MENU_GOAL_MAX_LENGTH = 500;
/** Seconds a warm transfer's target may ring before the agent comes back to the caller. */
export const TRANSFER_ANSWER_TIMEOUT_SECONDS = { min: 5, max: 120 } as const;

export type { TransferConfig, TransferTarget };

export const DEFAULT_COLD_DIAL_TIMEOUT_SECONDS = 30;

const E164 = /^\+[1-9]\d{6,14}$/;
const SIP_URI = /^sips?:[A-Za-z0-9._~%!$&'()*+,;=-]+@[A-Za-z0-9.-]+(:\d{1,5})?(;[A-Za-z0-9=._-]+)*$/;

export function isTransferDestination(value: string): boolean {
  return E164.test(value) || SIP_URI.test(value);
}

export function isSipUri(value: string): boolean {
  return SIP_URI.test(value);
}

const DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;

/** One opening: ISO weekdays (1 = Monday) and minutes after local midnight, end exclusive. */
export type HoursWindow = { days: number[]; startMinute: number; endMinute: number };

function minutesOf(text: string): number | null {
  const match = /^([01]?\d|2[0-4]):([0-5]\d)$/.exec(text);
  if (!match) return null;
  const minutes = Number(match[1]) * 60 + Number(match[2]);
  return minutes <= 1440 ? minutes : null;
}

function dayOf(text: string): number | null {
  const index = DAYS.indexOf(text.slice(0, 3).toLowerCase() as (typeof DAYS)[number]);
  return index >= 0 && /^[a-z]{3,9}$/i.test(text) ? index + 1 : null;
}

/**
 * `Mon-Fri 09:00-17:00; Sat 10:00-13:00` (days as ranges or lists — `Mon,Wed` —, 24-hour times, `;` between
 * openings) → windows; throws an Error saying what does not parse.
 */
export function parseTransferHours(text: string): HoursWindow[] {
  const parts = text
    .split(/[;\n]/)
    .map((part) => part.trim())
    .filter(Boolean);
  if (parts.length === 0) throw new Error("no opening hours given (e.g. Mon-Fri 09:00-17:00)");
  return parts.map((part) => {
    const match = /^([A-Za-z,\s-]+?)\s+(\d{1,2}:\d{2})\s*-\s*(\d{1,2}:\d{2})$/.exec(part);
    if (!match) throw new Error(`"${part}" does not parse; write days then times, e.g. Mon-Fri 09:00-17:00`);
    const days = new Set<number>();
    for (const piece of match[1]!.split(",").map((p) => p.trim()).filter(Boolean)) {
      const [from, to, extra] = piece.split("-").map((p) => p.trim());
      if (extra !== undefined) throw new Error(`"${piece}" is not a day or a range of days`);
      const start = dayOf(from ?? "");
      const end = to === undefined ? start : dayOf(to);
      if (start === null || end === null) throw new Error(`"${piece}" is not a day or a range of days (Mon … Sun)`);
      for (let day = start; ; day = (day % 7) + 1) {
        days.add(day);
        if (day === end) break;
      }
    }
    const startMinute = minutesOf(match[2]!);
    const endMinute = minutesOf(match[3]!);
    if (startMinute === null || endMinute === null) throw new Error(`"${part}": times are HH:MM, 00:00 to 24:00`);
    if (endMinute <= startMinute) throw new Error(`"${part}": the closing time must be after the opening time`);
    return { days: [...days].sort(), startMinute, endMinute };
  });
}

/** Whether a person is there at `now` (no hours: always). Hours that no longer parse count as closed. */
export function isWithinTransferHours(config: Pick<TransferConfig, "hours">, zone: string, now: Date): boolean {
  if (!config.hours) return true;
  let windows: HoursWindow[];
  try {
    windows = parseTransferHours(config.hours);
  } catch {
    return false;
  }
  const local = DateTime.fromJSDate(now, { zone });
  const minute = local.hour * 60 + local.minute;
  return windows.some((window) => window.days.includes(local.weekday) && minute >= window.startMinute && minute < window.endMinute);
}

export type TransferConfigIssue = { path: string; message: string };

/**
 * Every rule a transfer configuration breaks, with the field it is about (`transferConfig.targets.0.destination`).
 * The schema has already checked types and lengths; these are the rules that need the whole document.
 */
export function transferConfigIssues(config: TransferConfig, isTimezone: (zone: string) => boolean): TransferConfigIssue[] {
  const issues: TransferConfigIssue[] = [];
  const at = (path: string, message: string) => issues.push({ path: `transferConfig.${path}`, message });
  if (config.targets.length === 0) at("targets", "add at least one transfer target, or turn transfers off");
  const labels = new Set<string>();
  config.targets.forEach((target, i) => {
    const label = target.label.trim().toLowerCase();
    if (!label) at(`targets.${i}.label`, "a target needs a label");
    else if (labels.has(label)) at(`targets.${i}.label`, `"${target.label}" is used twice`);
    labels.add(label);
    if (!isTransferDestination(target.destination.trim())) at(`targets.${i}.destination`, `"${target.destination}" is neither an E.164 number (+14155550100) nor a SIP URI (sip:user@host)`);
  });
  if (config.mode === "warm" && config.answerTimeoutSeconds === null) at("answerTimeoutSeconds", "a warm transfer needs the seconds the target may ring before the agent comes back");
  if (config.hours !== null) {
    try {
      parseTransferHours(config.hours);
    } catch (error) {
      at("hours", error instanceof Error ? error.message : "does not parse");
    }
  }
  if (config.timezone !== null && !isTimezone(config.timezone)) at("timezone", `"${config.timezone}" is not an IANA timezone`);
  return issues;
}

/** The target the model named: by label (any case), else by destination; null when it is none of the agent's. */
export function findTransferTarget(config: TransferConfig, requested: string): TransferTarget | null {
  const wanted = requested.trim().toLowerCase();
  if (!wanted) return config.targets.length === 1 ? config.targets[0]! : null;
  return config.targets.find((target) => target.label.trim().toLowerCase() === wanted || target.destination.toLowerCase() === wanted) ?? null;
}

export const FALLBACK_OFFERS: Record<TransferFallback, string> = {
  book_meeting: "offer to book a meeting with a colleague (use book_meeting when they agree)",
  take_message: "offer to take a message for a colleague (ask what to pass on and repeat it back)",
  callback: "offer that a colleague calls them back (ask when suits them)",
};
