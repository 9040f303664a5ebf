import { DateTime } from "luxon";
import type { AgentStep } from "@/db/schema";
import {
  MAX_DATETIME_LENGTH,
  MAX_EMAIL_LENGTH,
  MAX_NAME_LENGTH,
  MAX_PHONE_EXTENSION_DIGITS,
  MAX_PHONE_NUMBER_LENGTH,
  MAX_SCHEDULE_AHEAD_DAYS,
  MAX_TIMEZONE_LENGTH,
  MAX_UTC_OFFSET_MINUTES,
  MAX_VARIABLE_NAME_LENGTH,
  MAX_VARIABLE_VALUE_LENGTH,
  MAX_VARIABLES_PER_CONTACT,
} from "@/server/schemas/limits";
import type { ConsentRecord } from "@/db/schema";
import { AppError } from "@/server/errors";
import type { RejectionReason } from "@/server/schemas/enrollment";
import { isSafeText, toSafeText, UNSAFE_TEXT_MESSAGE } from "@/server/schemas/text";
import { normalizePhoneNumber } from "@/server/services/phone/normalize-phone-number";
import { canonicalTimezone, inferTimezone } from "@/server/services/phone/timezones";
import { stepTimezone } from "@/server/services/scheduling/compute-step-due-at";
import { parseConsent } from "./consent";

/** Body fields with a meaning of their own; every other top-level property is a custom input variable. */
export const CONTACT_FIELDS = new Set([
  "name",
  "phoneNumber",
  "phoneNumberExt",
  "toEmailAddress",
  "timezone",
  "scheduledAt",
  "bypassCallWindows",
  "groupByField",
  "customVariables",
  "consent",
]);

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const EXTENSION_PATTERN = new RegExp(`^[0-9]{1,${MAX_PHONE_EXTENSION_DIGITS}}$`);

/** A contact that passed validation: what a sequence is created from (also stored in a bulk batch as JSON). */
export type EnrollmentContact = {
  /** Position in the request (0 for single enrollment). */
  index: number;
  name: string;
  /** E.164 */
  phoneNumber: string;
  phoneNumberExt: string;
  toEmailAddress: string | null;
  timezone: string;
  /** Explicit first-call time (ISO instant), if requested. */
  scheduledAt: string | null;
  bypassCallWindows: boolean;
  groupByField: string | null;
  /** `<groupByField>=<value>` when the contact is chained; null otherwise. */
  groupKey: string | null;
  customInputVariables: Record<string, string>;
  /** Consent record as given (normalized); absent in batches recorded before consent records existed. */
  consent?: ConsentRecord | null;
};

export type ContactRejection = { index: number; phoneNumber: string; reason: RejectionReason; error: string };

export type ContactRules = {
  steps: AgentStep[];
  /** Slugs of the agent's required (non-deleted) input variables. */
  requiredVariables: string[];
  emailRequired: boolean;
  /** The agent's first timezone: last fallback, and the zone of `agent`-sourced windows. */
  agentTimezone: string;
  /** Bulk batch default, already validated. */
  defaultTimezone: string | null;
  /** Request-level chaining field (a contact's own `groupByField` overrides it). */
  groupByField: string | null;
  /** Variables (and `name`) to title-case; empty unless the organization is allowlisted. */
  titleCaseFields: ReadonlySet<string>;
  /** The organization's "require consent" setting: a contact without `consent` is MISSING_CONSENT. */
  requireConsent?: boolean;
  now: Date;
};

export type ContactValidation = { ok: true; contact: EnrollmentContact } | { ok: false; rejection: ContactRejection };

/** The rules every contact of one enrollment request is checked by: the agent's, and the request's options. */
export function contactRulesFor(
  agent: Pick<ContactRules, "steps" | "requiredVariables" | "emailRequired" | "agentTimezone">,
  request: { defaultTimezone: string | null; groupByField?: string; titleCaseFields?: ReadonlySet<string>; now: Date },
): ContactRules {
  return {
    steps: agent.steps,
    requiredVariables: agent.requiredVariables,
    emailRequired: agent.emailRequired,
    agentTimezone: agent.agentTimezone,
    defaultTimezone: request.defaultTimezone,
    groupByField: request.groupByField?.trim() || null,
    titleCaseFields: request.titleCaseFields ?? new Set(),
    now: request.now,
  };
}

/** A request's default `timezone` as a canonical IANA name; null when absent or blank, 400 INVALID_TIMEZONE when unknown. */
export function parseDefaultTimezone(timezone: string | undefined): string | null {
  if (timezone === undefined || timezone.trim() === "") return null;
  const canonical = canonicalTimezone(timezone);
  if (!canonical) throw new AppError("INVALID_TIMEZONE", `timezone ${JSON.stringify(timezone)} is not an IANA timezone name.`);
  return canonical;
}

class Rejected extends Error {
  constructor(
    readonly reason: RejectionReason,
    message: string,
  ) {
    super(message);
  }
}

function reject(reason: RejectionReason, message: string): never {
  throw new Rejected(reason, message);
}

/** "mary-jane o'NEIL" → "Mary-Jane O'Neil". */
export function titleCase(value: string): string {
  return value.toLowerCase().replace(/(^|[\s\-'’.(])(\p{L})/gu, (_match, separator: string, letter: string) => separator + letter.toUpperCase());
}

/** Refuses text over `maxLength` characters or holding what PostgreSQL cannot store (NUL, unpaired surrogates). */
function checkText(value: string, reason: RejectionReason, field: string, maxLength: number): void {
  if (value.length > maxLength) reject(reason, `${field} is longer than ${maxLength.toLocaleString("en-US")} characters.`);
  if (!isSafeText(value)) reject(reason, `${field} ${UNSAFE_TEXT_MESSAGE}.`);
}

/** A trimmed string field, null when absent or blank. `textReason`: the reason for an oversized or unsafe value. */
function optionalString(
  value: unknown,
  field: string,
  options: { reason: RejectionReason; textReason?: RejectionReason; maxLength: number },
): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") reject(options.reason, `${field} must be a string.`);
  checkText(value, options.textReason ?? options.reason, field, options.maxLength);
  const trimmed = value.trim();
  return trimmed === "" ? null : trimmed;
}

/** `phoneNumber` as sent, for `rejected[].phoneNumber`: trimmed, and cut to its limit and made safe when it is not. */
export function phoneNumberAsSent(raw: Record<string, unknown>): string {
  if (typeof raw.phoneNumber !== "string") return "";
  return toSafeText(raw.phoneNumber.trim().slice(0, MAX_PHONE_NUMBER_LENGTH));
}

/**
 * Custom input variables: every other top-level string property and/or the `customVariables` object (DESIGN §4).
 * Variables the agent does not declare are kept: they can serve as cancel references.
 * Raised here: INVALID_INPUT_VARIABLE (non-string value, oversized or unsafe name or value, more than
 * MAX_VARIABLES_PER_CONTACT variables, or the same key with two values).
 * The result has no prototype: a variable named `constructor` or `__proto__` is a plain entry like any other.
 */
export function extractCustomVariables(raw: Record<string, unknown>): Record<string, string> {
  const variables = Object.create(null) as Record<string, string>;
  let count = 0;
  const put = (key: string, value: unknown, where: string) => {
    if (value === undefined || value === null) return;
    if (key.length === 0 || key.length > MAX_VARIABLE_NAME_LENGTH) {
      reject("INVALID_INPUT_VARIABLE", `Custom variable names must be 1–${MAX_VARIABLE_NAME_LENGTH} characters.`);
    }
    if (!isSafeText(key)) reject("INVALID_INPUT_VARIABLE", `Custom variable names ${UNSAFE_TEXT_MESSAGE}.`);
    if (typeof value !== "string") reject("INVALID_INPUT_VARIABLE", `Custom variable ${where} must be a string.`);
    checkText(value, "INVALID_INPUT_VARIABLE", `Custom variable ${where}`, MAX_VARIABLE_VALUE_LENGTH);
    if (!Object.hasOwn(variables, key)) {
      count += 1;
      if (count > MAX_VARIABLES_PER_CONTACT) {
        reject("INVALID_INPUT_VARIABLE", `At most ${MAX_VARIABLES_PER_CONTACT} custom variables per contact.`);
      }
    } else if (variables[key] !== value) {
      reject("INVALID_INPUT_VARIABLE", `Custom variable ${key} has two different values (top level and customVariables).`);
    }
    variables[key] = value;
  };
  for (const [key, value] of Object.entries(raw)) {
    if (!CONTACT_FIELDS.has(key)) put(key, value, key);
  }
  const nested = raw.customVariables;
  if (nested !== undefined && nested !== null) {
    if (typeof nested !== "object" || Array.isArray(nested)) {
      reject("INVALID_INPUT_VARIABLE", "customVariables must be an object of strings.");
    }
    for (const [key, value] of Object.entries(nested as Record<string, unknown>)) put(key, value, `customVariables.${key}`);
  }
  return variables;
}

const DAY_MS = 24 * 3600 * 1000;

/**
 * Reads `scheduledAt`: an ISO 8601 instant with an offset is taken as is; a local date-time without one is read in
 * the zone the scheduler uses for the first step (the contact's zone, or the agent's for `agent`-sourced windows).
 * It must be in the future and at most MAX_SCHEDULE_AHEAD_DAYS ahead, with a four-digit year (no ±YYYYYY extended
 * years) and an offset within ±14:00. Raised here: INVALID_SCHEDULED_AT.
 */
export function parseScheduledAt(value: string, zone: string, now: Date): Date {
  const parsed = DateTime.fromISO(value, { zone, setZone: true });
  if (!parsed.isValid || !/^\d{4}/.test(value)) {
    reject("INVALID_SCHEDULED_AT", "scheduledAt must be an ISO 8601 date-time with a four-digit year, e.g. 2026-12-01T15:00:00Z.");
  }
  if (Math.abs(parsed.offset) > MAX_UTC_OFFSET_MINUTES) {
    reject("INVALID_SCHEDULED_AT", "scheduledAt: the UTC offset must be between -14:00 and +14:00.");
  }
  if (parsed.toMillis() <= now.getTime()) reject("INVALID_SCHEDULED_AT", "scheduledAt must be in the future.");
  if (parsed.toMillis() > now.getTime() + MAX_SCHEDULE_AHEAD_DAYS * DAY_MS) {
    reject("INVALID_SCHEDULED_AT", `scheduledAt must be at most ${MAX_SCHEDULE_AHEAD_DAYS} days ahead.`);
  }
  return parsed.toJSDate();
}

/**
 * Validates and normalizes one contact (everything but opt-outs and duplicates, which need the whole request or
 * the database). Checks run in the order the rejection reasons are listed, and the first failure is reported.
 */
export async function validateContact(raw: Record<string, unknown>, index: number, rules: ContactRules): Promise<ContactValidation> {
  try {
    const contact = await normalizeContact(raw, index, rules);
    return { ok: true, contact };
  } catch (error) {
    if (error instanceof Rejected) {
      return { ok: false, rejection: { index, phoneNumber: phoneNumberAsSent(raw), reason: error.reason, error: error.message } };
    }
    throw error;
  }
}

async function normalizeContact(raw: Record<string, unknown>, index: number, rules: ContactRules): Promise<EnrollmentContact> {
  let name = optionalString(raw.name, "name", { reason: "MISSING_NAME", textReason: "INVALID_NAME", maxLength: MAX_NAME_LENGTH });
  if (!name) reject("MISSING_NAME", "name is required.");

  if (raw.phoneNumber === undefined || raw.phoneNumber === null || (typeof raw.phoneNumber === "string" && raw.phoneNumber.trim() === "")) {
    reject("MISSING_PHONE_NUMBER", "phoneNumber is required.");
  }
  if (typeof raw.phoneNumber !== "string") reject("INVALID_PHONE_NUMBER", "phoneNumber must be a string in E.164 format.");
  checkText(raw.phoneNumber, "INVALID_PHONE_NUMBER", "phoneNumber", MAX_PHONE_NUMBER_LENGTH);
  const phone = normalizePhoneNumber(raw.phoneNumber);
  if (!phone) reject("INVALID_PHONE_NUMBER", `phoneNumber ${JSON.stringify(raw.phoneNumber)} is not a valid phone number (E.164, e.g. +14155550171).`);
  const extension =
    optionalString(raw.phoneNumberExt, "phoneNumberExt", { reason: "INVALID_PHONE_NUMBER", maxLength: MAX_PHONE_NUMBER_LENGTH }) ?? phone.extension ?? "";
  if (extension && !EXTENSION_PATTERN.test(extension)) {
    reject("INVALID_PHONE_NUMBER", `phoneNumberExt must be 1–${MAX_PHONE_EXTENSION_DIGITS} digits.`);
  }

  const requestedZone = optionalString(raw.timezone, "timezone", { reason: "INVALID_TIMEZONE", maxLength: MAX_TIMEZONE_LENGTH });
  let timezone: string | null;
  if (requestedZone) {
    timezone = canonicalTimezone(requestedZone);
    if (!timezone) reject("INVALID_TIMEZONE", `timezone ${JSON.stringify(requestedZone)} is not an IANA timezone name.`);
  } else {
    timezone = rules.defaultTimezone ?? (await inferTimezone(phone.parsed, { agentTimezone: rules.agentTimezone, now: rules.now })) ?? rules.agentTimezone;
  }

  let scheduledAt: string | null = null;
  const rawScheduledAt = optionalString(raw.scheduledAt, "scheduledAt", { reason: "INVALID_SCHEDULED_AT", maxLength: MAX_DATETIME_LENGTH });
  if (rawScheduledAt) {
    const firstStep = rules.steps[0];
    const zone = firstStep ? stepTimezone(firstStep, timezone, rules.agentTimezone) : timezone;
    scheduledAt = parseScheduledAt(rawScheduledAt, zone, rules.now).toISOString();
  }

  const email = optionalString(raw.toEmailAddress, "toEmailAddress", { reason: "MISSING_EMAIL", maxLength: MAX_EMAIL_LENGTH });
  if (email && !EMAIL_PATTERN.test(email)) reject("MISSING_EMAIL", `toEmailAddress ${JSON.stringify(email)} is not a valid email address.`);
  if (!email && rules.emailRequired) reject("MISSING_EMAIL", "toEmailAddress is required: this agent's sequence has email steps.");

  const variables = extractCustomVariables(raw);
  const missing = rules.requiredVariables.filter((slug) => !variables[slug]?.trim());
  if (missing.length > 0) {
    reject("MISSING_INPUT_VARIABLE", `Missing required input variable${missing.length > 1 ? "s" : ""}: ${missing.join(", ")}.`);
  }

  if (raw.bypassCallWindows !== undefined && raw.bypassCallWindows !== null && typeof raw.bypassCallWindows !== "boolean") {
    reject("INVALID_INPUT_VARIABLE", "bypassCallWindows must be a boolean.");
  }
  const groupByField =
    optionalString(raw.groupByField, "groupByField", { reason: "INVALID_INPUT_VARIABLE", maxLength: MAX_VARIABLE_NAME_LENGTH }) ?? rules.groupByField;

  for (const field of rules.titleCaseFields) {
    if (field === "name") name = titleCase(name);
    else if (variables[field] !== undefined) variables[field] = titleCase(variables[field]);
  }
  const groupValue = groupByField ? variables[groupByField]?.trim() : undefined;

  const consent = parseConsent(raw.consent, { required: rules.requireConsent === true, now: rules.now });
  if (!consent.ok) reject(consent.reason, consent.message);

  return {
    index,
    name,
    phoneNumber: phone.e164,
    phoneNumberExt: extension,
    toEmailAddress: email,
    timezone,
    scheduledAt,
    bypassCallWindows: raw.bypassCallWindows === true,
    groupByField: groupByField ?? null,
    groupKey: groupByField && groupValue ? `${groupByField}=${groupValue}` : null,
    customInputVariables: variables,
    consent: consent.consent,
  };
}
