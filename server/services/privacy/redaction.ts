import { parsePhoneNumberFromString } from "libphonenumber-js";
import { CUSTOM_PATTERN_LIMITS, REDACTION_CATEGORIES } from "./redaction-categories";

/**
 * Redaction of what a contact (or the agent) says, before anything is stored, logged or sent (docs/compliance.md
 * "Redaction"). Pattern matching with checks where the data has one (Luhn for cards, the ABA checksum for routing
 * numbers, the SSA's never-issued ranges for SSNs); context words where a bare number would be ambiguous (bank
 * accounts, dates of birth). What it cannot catch is listed in the guide.
 */

export { CUSTOM_PATTERN_LIMITS, REDACTION_CATEGORIES, type RedactionCategory } from "./redaction-categories";

export type CustomRedactionPattern = { name: string; pattern: string };

export type RedactionSettings = {
  categories: readonly string[];
  patterns: readonly CustomRedactionPattern[];
};

/**
 * Never redacted: the contact's own number and email, the number we call from, and `texts` (the call's disclosures,
 * the organization's own words, kept exactly as spoken).
 */
export type RedactionExemptions = { phoneNumbers: readonly string[]; emails: readonly string[]; texts?: readonly string[] };

export type RedactionResult = { text: string; categories: string[] };

export type Redactor = {
  redact(text: string): RedactionResult;
  /** `redact(text).text`, for values that only need the text (summaries, extracted values). */
  redactText(text: string): string;
};

const CUSTOM_NAME = /^[a-z0-9][a-z0-9-]*$/;

export const redactionMarker = (category: string) => `[redacted:${category}]`;

type Span = { start: number; end: number; category: string };

/** Spoken digit words a transcriber may write out ("four one one one"), read as digits for detection. */
const DIGIT_WORDS: Record<string, string> = { zero: "0", oh: "0", o: "0", one: "1", two: "2", three: "3", four: "4", five: "5", six: "6", seven: "7", eight: "8", nine: "9" };

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

function abaValid(digits: string): boolean {
  if (!/^\d{9}$/.test(digits)) return false;
  const d = [...digits].map(Number);
  return (3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + (d[2]! + d[5]! + d[8]!)) % 10 === 0;
}

/** Area 000, 666 and 900–999, group 00 and serial 0000 were never issued. */
function ssnValid(area: string, group: string, serial: string): boolean {
  return area !== "000" && area !== "666" && area[0] !== "9" && group !== "00" && serial !== "0000";
}

/** Runs of digits written with spaces, dashes or dots between groups ("4111 1111-1111 1111"), with their extent. */
function digitRuns(text: string): Array<{ start: number; end: number; digits: string; raw: string }> {
  const runs: Array<{ start: number; end: number; digits: string; raw: string }> = [];
  const pattern = /\d(?:[ .-]?\d)*/g;
  for (const match of text.matchAll(pattern)) {
    const raw = match[0];
    runs.push({ start: match.index, end: match.index + raw.length, digits: raw.replace(/\D/g, ""), raw });
  }
  return runs;
}

/**
 * The text with runs of spoken digit words turned into digits ("four one one one" → "4111"), and a map from each
 * character of the new text back to the original, so spans found in it redact the words themselves.
 */
function normalizeSpokenDigits(text: string): { text: string; map: number[]; ends: number[] } {
  const tokens = [...text.matchAll(/[A-Za-z]+/g)];
  const isDigit = (index: number) => DIGIT_WORDS[tokens[index]![0].toLowerCase()] !== undefined;
  const endOf = (index: number) => tokens[index]!.index + tokens[index]![0].length;
  const out: string[] = [];
  const map: number[] = [];
  const ends: number[] = [];
  let copied = 0;
  let index = 0;
  while (index < tokens.length) {
    if (!isDigit(index)) {
      index += 1;
      continue;
    }
    // A run: digit words separated only by spaces, commas or dashes; four or more are read as digits.
    let next = index + 1;
    while (next < tokens.length && isDigit(next) && /^[\s,-]*$/.test(text.slice(endOf(next - 1), tokens[next]!.index))) next += 1;
    if (next - index >= 4) {
      for (let i = copied; i < tokens[index]!.index; i++) {
        out.push(text[i]!);
        map.push(i);
        ends.push(i + 1);
      }
      for (let t = index; t < next; t++) {
        out.push(DIGIT_WORDS[tokens[t]![0].toLowerCase()]!);
        map.push(tokens[t]!.index);
        ends.push(endOf(t));
      }
      copied = endOf(next - 1);
    }
    index = next;
  }
  for (let i = copied; i < text.length; i++) {
    out.push(text[i]!);
    map.push(i);
    ends.push(i + 1);
  }
  return { text: out.join(""), map, ends };
}

function normalizedPhone(raw: string): string | null {
  const digits = raw.replace(/[^\d+]/g, "");
  const parsed = parsePhoneNumberFromString(digits.startsWith("+") ? digits : digits.length === 11 && digits.startsWith("1") ? `+${digits}` : digits, "US");
  // Valid, not merely possible: "1127-220730" in an organization's name is no phone number.
  return parsed?.isValid() ? parsed.number : null;
}

const CONTEXT_WINDOW = 40;
const ACCOUNT_CONTEXT = /\b(account|acct|a\/c|iban|checking|savings)\b/i;
const ROUTING_CONTEXT = /\b(routing|aba|transit|sort code)\b/i;
const SSN_CONTEXT = /\b(social security|social|ssn|ss number|tax id|itin)\b/i;
const DOB_CONTEXT = /\b(born|birth|birthday|dob|d\.o\.b)\b/i;
const MONTHS = "(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)";
const DATE_PATTERN = new RegExp(
  `\\b(?:\\d{1,2}[/.-]\\d{1,2}[/.-](?:\\d{4}|\\d{2})|\\d{4}-\\d{2}-\\d{2}|${MONTHS}\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s+\\d{4}|\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTHS},?\\s+\\d{4})\\b`,
  "gi",
);
const EMAIL_PATTERN = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
const EMAIL_SPOKEN = /[A-Za-z0-9._%+-]+\s+at\s+[A-Za-z0-9-]+(?:\s+dot\s+[A-Za-z]{2,})+/gi;

function near(text: string, start: number, end: number, context: RegExp): boolean {
  return context.test(text.slice(Math.max(0, start - CONTEXT_WINDOW), Math.min(text.length, end + 12)));
}

/** A custom pattern is refused when it is not a valid regular expression or nests quantifiers (catastrophic backtracking). */
export function customPatternProblem(pattern: string): string | null {
  if (pattern.length === 0 || pattern.length > CUSTOM_PATTERN_LIMITS.patternLength) return `must be 1–${CUSTOM_PATTERN_LIMITS.patternLength} characters`;
  if (/\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)\s*[+*{]/.test(pattern)) return "nests quantifiers (like (a+)+), which can take forever to match";
  if (/\\[1-9]/.test(pattern)) return "uses a backreference";
  try {
    new RegExp(pattern, "giu");
  } catch (error) {
    return `is not a valid regular expression (${(error as Error).message})`;
  }
  if (new RegExp(pattern, "giu").test("")) return "matches the empty text";
  return null;
}

export function customPatternNameProblem(name: string): string | null {
  if (!CUSTOM_NAME.test(name) || name.length > CUSTOM_PATTERN_LIMITS.nameLength) return `must be lowercase letters, digits and dashes (at most ${CUSTOM_PATTERN_LIMITS.nameLength})`;
  if ((REDACTION_CATEGORIES as readonly string[]).includes(name)) return "is the name of a built-in category";
  return null;
}

/**
 * A redactor for one call: the organization's categories and patterns, the contact's own number and email (and our
 * caller ID) exempt. Overlapping finds are merged; each becomes one `[redacted:<category>]` marker.
 */
export function createRedactor(settings: RedactionSettings, exemptions: RedactionExemptions): Redactor {
  const enabled = new Set(settings.categories);
  const exemptPhones = new Set(exemptions.phoneNumbers.map((number) => normalizedPhone(number)).filter((number): number is string => !!number));
  const exemptEmails = new Set(exemptions.emails.map((email) => email.trim().toLowerCase()).filter(Boolean));
  const custom = settings.patterns.filter((entry) => customPatternProblem(entry.pattern) === null).map((entry) => ({ name: entry.name, regex: new RegExp(entry.pattern, "giu") }));

  function find(text: string): Span[] {
    const spans: Span[] = [];
    const add = (start: number, end: number, category: string) => spans.push({ start, end, category });
    for (const run of digitRuns(text)) {
      const { digits } = run;
      if (enabled.has("card") && digits.length >= 13 && digits.length <= 19 && luhnValid(digits)) {
        add(run.start, run.end, "card");
        continue;
      }
      const ssn = /^(\d{3})[ .-]?(\d{2})[ .-]?(\d{4})$/.exec(run.raw);
      if (enabled.has("ssn") && ssn && ssnValid(ssn[1]!, ssn[2]!, ssn[3]!) && (/^\d{3}[ .-]\d{2}[ .-]\d{4}$/.test(run.raw) || near(text, run.start, run.end, SSN_CONTEXT))) {
        add(run.start, run.end, "ssn");
        continue;
      }
      if (enabled.has("routing-number") && digits.length === 9 && abaValid(digits) && near(text, run.start, run.end, ROUTING_CONTEXT)) {
        add(run.start, run.end, "routing-number");
        continue;
      }
      if (enabled.has("bank-account") && digits.length >= 6 && digits.length <= 17 && near(text, run.start, run.end, ACCOUNT_CONTEXT)) {
        add(run.start, run.end, "bank-account");
        continue;
      }
      if (enabled.has("phone") && digits.length >= 10 && digits.length <= 15) {
        const prefixed = text[run.start - 1] === "+" ? `+${digits}` : digits;
        const number = normalizedPhone(prefixed);
        if (number && !exemptPhones.has(number)) add(run.start - (text[run.start - 1] === "+" ? 1 : 0), run.end, "phone");
      }
    }
    if (enabled.has("phone")) {
      // (415) 555-0100: the parenthesis breaks the digit run above.
      for (const match of text.matchAll(/\(\d{3}\)\s*\d{3}[ .-]?\d{4}/g)) {
        const number = normalizedPhone(match[0]);
        if (number && !exemptPhones.has(number)) add(match.index, match.index + match[0].length, "phone");
      }
    }
    if (enabled.has("date-of-birth")) {
      for (const match of text.matchAll(DATE_PATTERN)) {
        if (near(text, match.index, match.index + match[0].length, DOB_CONTEXT)) add(match.index, match.index + match[0].length, "date-of-birth");
      }
    }
    if (enabled.has("email")) {
      for (const match of text.matchAll(EMAIL_PATTERN)) if (!exemptEmails.has(match[0].toLowerCase())) add(match.index, match.index + match[0].length, "email");
      for (const match of text.matchAll(EMAIL_SPOKEN)) {
        const written = match[0].replace(/\s+at\s+/i, "@").replace(/\s+dot\s+/gi, ".").toLowerCase();
        if (!exemptEmails.has(written)) add(match.index, match.index + match[0].length, "email");
      }
    }
    for (const { name, regex } of custom) {
      regex.lastIndex = 0;
      for (const match of text.matchAll(regex)) if (match[0].length > 0) add(match.index, match.index + match[0].length, name);
    }
    return spans;
  }

  function redact(text: string): RedactionResult {
    if (!text) return { text, categories: [] };
    const spans = find(text);
    // Spoken digits ("four one one one …"): found in the normalized text, mapped back onto the words.
    const spoken = normalizeSpokenDigits(text);
    if (spoken.text !== text) {
      for (const span of find(spoken.text)) {
        const start = spoken.map[span.start]!;
        const end = spoken.ends[span.end - 1]!;
        if (!spans.some((other) => other.start <= start && other.end >= end)) spans.push({ start, end, category: span.category });
      }
    }
    // Inside an exempt text (a disclosure): nothing is redacted.
    const exempt = (exemptions.texts ?? []).filter(Boolean).flatMap((phrase) => {
      const found: Array<[number, number]> = [];
      for (let at = text.indexOf(phrase); at >= 0; at = text.indexOf(phrase, at + 1)) found.push([at, at + phrase.length]);
      return found;
    });
    if (exempt.length > 0) spans.splice(0, spans.length, ...spans.filter((span) => !exempt.some(([from, to]) => span.start < to && span.end > from)));
    if (spans.length === 0) return { text, categories: [] };
    spans.sort((a, b) => a.start - b.start || b.end - a.end);
    const merged: Span[] = [];
    for (const span of spans) {
      const previous = merged.at(-1);
      if (previous && span.start < previous.end) previous.end = Math.max(previous.end, span.end);
      else merged.push({ ...span });
    }
    let out = "";
    let at = 0;
    for (const span of merged) {
      out += text.slice(at, span.start) + redactionMarker(span.category);
      at = span.end;
    }
    out += text.slice(at);
    return { text: out, categories: [...new Set(merged.map((span) => span.category))] };
  }

  return { redact, redactText: (text) => redact(text).text };
}

/** Redacts every string inside a JSON-like value (extracted variables, action metadata). */
export function redactDeep<T>(value: T, redactor: Redactor): T {
  if (typeof value === "string") return redactor.redactText(value) as T;
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redactor)) as T;
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactDeep(item, redactor)])) as T;
  return value;
}
