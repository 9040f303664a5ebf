import { DateTime } from "luxon";
import type { CallAction, CallOutcome } from "@/db/schema";
import type { AnalysisInput, AnalysisResult, ExtractionDefinition } from "./types";

export const DEFAULT_DATETIME_FORMAT = "yyyy-MM-dd HH:mm:ss";

/**
 * The definition's pattern as a Luxon format. Patterns are written with Unicode/Luxon tokens
 * (`yyyy-MM-dd HH:mm:ss`); the common moment-style spellings (`YYYY`, `DD`, `A`) are accepted too.
 */
export function toLuxonFormat(pattern: string | null | undefined): string {
  const value = (pattern ?? "").trim() || DEFAULT_DATETIME_FORMAT;
  return value.replace(/YYYY/g, "yyyy").replace(/YY/g, "yy").replace(/DD/g, "dd").replace(/(?<![a-zA-Z])A(?![a-zA-Z])/g, "a");
}

/** A date/time value written as the definition asks: its pattern, in UTC or in the contact's zone. */
export function formatDateTimeValue(instant: DateTime, definition: Pick<ExtractionDefinition, "datetimeFormat" | "formatDatetimeInUtc">, contactZone: string): string {
  const zoned = definition.formatDatetimeInUtc ? instant.toUTC() : instant.setZone(contactZone || "UTC");
  const pattern = (definition.datetimeFormat ?? "").trim();
  if (/^iso(8601)?$/i.test(pattern)) return zoned.toISO({ suppressMilliseconds: true }) ?? "";
  return zoned.toFormat(toLuxonFormat(pattern));
}

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
const WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];

/**
 * A date and time as people say it, read relative to `reference` in `zone`: "Thursday, March 5 at 2:30 PM",
 * "March 5 at 14:30", "tomorrow at 3 pm", "Friday at 10am", or an ISO timestamp. Null when nothing is found.
 */
export function parseSpokenDateTime(text: string, reference: Date, zone: string): DateTime | null {
  const iso = text.match(/\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?/);
  if (iso) {
    const parsed = DateTime.fromISO(iso[0].replace(" ", "T"), { zone });
    if (parsed.isValid) return parsed;
  }
  const lower = text.toLowerCase();
  const time = lower.match(/\bat\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?/);
  if (!time) return null;
  let hour = Number(time[1]);
  const minute = Number(time[2] ?? 0);
  const meridiem = time[3]?.replace(/\./g, "");
  if (meridiem === "pm" && hour < 12) hour += 12;
  if (meridiem === "am" && hour === 12) hour = 0;
  if (hour > 23 || minute > 59) return null;
  const now = DateTime.fromJSDate(reference, { zone });
  let day: DateTime | null = null;
  const monthDay = lower.match(new RegExp(`\\b(${MONTHS.join("|")})\\s+(\\d{1,2})(?:st|nd|rd|th)?(?:,?\\s+(\\d{4}))?`));
  if (monthDay) {
    const month = MONTHS.indexOf(monthDay[1]!) + 1;
    const dayOfMonth = Number(monthDay[2]);
    const explicitYear = monthDay[3] ? Number(monthDay[3]) : null;
    day = DateTime.fromObject({ year: explicitYear ?? now.year, month, day: dayOfMonth }, { zone });
    // Without a year, a date more than a month in the past means next year's.
    if (!explicitYear && day.isValid && day < now.startOf("day").minus({ days: 31 })) day = day.plus({ years: 1 });
  } else if (/\btomorrow\b/.test(lower)) {
    day = now.startOf("day").plus({ days: 1 });
  } else if (/\btoday\b/.test(lower)) {
    day = now.startOf("day");
  } else {
    const weekday = WEEKDAYS.findIndex((name) => new RegExp(`\\b${name}\\b`).test(lower));
    if (weekday >= 0) {
      const ahead = (weekday + 1 - now.weekday + 7) % 7 || 7;
      day = now.startOf("day").plus({ days: ahead });
    }
  }
  if (!day?.isValid) return null;
  const result = DateTime.fromObject({ year: day.year, month: day.month, day: day.day, hour, minute }, { zone });
  return result.isValid ? result : null;
}

/** A value made consistent with its definition's type; null when it cannot be. */
export function coerceExtractedValue(
  definition: ExtractionDefinition,
  value: unknown,
  context: { reference: Date; contactZone: string },
): string | number | boolean | null {
  if (value === null || value === undefined || value === "") return null;
  switch (definition.type) {
    case "DROPDOWN": {
      const options = definition.dropdownOptions ?? [];
      const text = String(value).trim().toLowerCase();
      return options.find((option) => option.toLowerCase() === text) ?? null;
    }
    case "DATE/TIME": {
      const text = String(value);
      // Already written in the definition's pattern (and zone) first; then ISO 8601 (offset-less: contact's zone).
      let instant: DateTime = DateTime.fromFormat(text, toLuxonFormat(definition.datetimeFormat), { zone: definition.formatDatetimeInUtc ? "UTC" : context.contactZone || "UTC" });
      if (!instant.isValid) instant = DateTime.fromISO(text, { zone: context.contactZone || "UTC" });
      if (!instant.isValid) instant = parseSpokenDateTime(text, context.reference, context.contactZone || "UTC") ?? instant;
      return instant.isValid ? formatDateTimeValue(instant, definition, context.contactZone) : null;
    }
    case "NUMBER": {
      const number = typeof value === "number" ? value : Number(String(value).replace(/[^0-9.-]/g, ""));
      return Number.isFinite(number) && String(value).match(/\d/) ? number : null;
    }
    case "BOOLEAN": {
      if (typeof value === "boolean") return value;
      const text = String(value).trim().toLowerCase();
      if (["true", "yes", "y", "1"].includes(text)) return true;
      if (["false", "no", "n", "0"].includes(text)) return false;
      return null;
    }
    default:
      return typeof value === "string" ? value.trim() : JSON.stringify(value);
  }
}

export function action(actionKey: string, description: string, completedAt: Date, metadata: Record<string, unknown> = {}): CallAction {
  return { description, status: "completed", actionKey, completedAt: completedAt.toISOString(), metadata };
}

/**
 * The contract every analyser's output is held to, whatever produced it: `extractedVariables` has exactly the
 * definitions' slugs with type-consistent values (or null), outcome names are configured definitions (others are
 * dropped, duplicates merged), actions are complete.
 */
export function normalizeAnalysis(result: AnalysisResult, input: AnalysisInput): AnalysisResult {
  const context = { reference: input.endedAt, contactZone: input.contact.timezone };
  const extractedVariables: AnalysisResult["extractedVariables"] = {};
  for (const definition of input.extractionDefinitions) {
    extractedVariables[definition.slug] = coerceExtractedValue(definition, result.extractedVariables?.[definition.slug], context);
  }
  const names = new Map(input.outcomeDefinitions.map((definition) => [definition.name.toLowerCase(), definition.name]));
  const outcomes: CallOutcome[] = [];
  for (const outcome of result.outcomes ?? []) {
    const name = names.get(String(outcome?.name ?? "").toLowerCase());
    if (name && !outcomes.some((existing) => existing.name === name)) outcomes.push({ name, reasoning: String(outcome.reasoning ?? "").trim() || "Chosen by the analyser." });
  }
  const fixAction = (item: Partial<CallAction>): CallAction => ({
    description: String(item.description ?? "").trim() || String(item.actionKey ?? "action"),
    status: String(item.status ?? "completed"),
    actionKey: String(item.actionKey ?? "action").trim() || "action",
    completedAt: typeof item.completedAt === "string" && !Number.isNaN(Date.parse(item.completedAt)) ? item.completedAt : input.endedAt.toISOString(),
    metadata: item.metadata && typeof item.metadata === "object" ? (item.metadata as Record<string, unknown>) : {},
  });
  return {
    resultType: result.resultType,
    summary: result.summary.trim(),
    extractedVariables,
    outcomes,
    agentActions: (result.agentActions ?? []).map(fixAction),
    humanActions: (result.humanActions ?? []).map(fixAction),
  };
}
