import { findPhoneNumbersInText, parsePhoneNumberFromString, type CountryCode } from "libphonenumber-js/max";
import { CUSTOM_PATTERN_LIMITS, REDACTION_CATEGORIES } from "./redaction-categories";
import { abaValid, findIbans, isCardNumber, ssnValid } from "./redaction-checks";
import { findKeptSpans, labelOf } from "./redaction-context";

/**
 * Redaction of what a contact (or the agent) says, before anything is stored, logged or sent (docs/compliance.md
 * "Redaction"). Each category is found by what proves it, not by a run of digits: phone numbers by libphonenumber's
 * matcher (Google's PhoneNumberMatcher, full metadata: valid numbers only, dates and timestamps skipped), cards by Luhn
 * and a brand's prefix and length, IBANs by their mod-97 check, SSNs by their format and the SSA's never-issued
 * ranges, routing numbers by the ABA checksum; bank accounts and 9-digit SSNs by the label said before them. Dates,
 * times, timestamps, durations, prices, percentages, ZIP codes and order/invoice numbers are kept
 * (redaction-context.ts). What it cannot catch is listed in the guide; tests/fixtures/redaction-corpus.ts measures it.
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
const REPEAT_WORDS: Record<string, number> = { double: 2, triple: 3 };

/** Digits in groups, one space, dot or dash (or " - ") between groups: "4111 1111-1111 1111", "350 - 44 - 1288". */
const DIGIT_RUN = /\d(?:(?: - |[ .-])?\d)*/g;
/** An SSN as written: 3, 2 and 4 digits with the same separator twice. */
const SSN_SHAPE = /(?<![\d.-])(\d{3})( - |[ .-])(\d{2})\2(\d{4})(?![\d]|[.-]\d)/g;
/** A local number (no area code), redacted only after a phone word: "her cell: 555-0134". */
const LOCAL_PHONE = /(?<![\d.-]|\d[ .-]|\)\s?)\d{3}[-. ]\d{4}(?![\d]|[.-]\d)/g;
/** An international call prefix (00 or 011) starting a number: rewritten to "+" for the matcher, same length. */
const DIAL_OUT = /(?<![\w+.-]|\d[ .-])(?:00|011)(?=[ .-]?[1-9])/g;

function digitRuns(text: string): Array<{ start: number; end: number; digits: string }> {
  return [...text.matchAll(DIGIT_RUN)].map((match) => ({ start: match.index, end: match.index + match[0].length, digits: match[0].replace(/\D/g, "") }));
}

/**
 * The text with runs of spoken digit words turned into digits ("four one one one" → "4111"), and a map from each
 * character of the new text back to the original, so spans found in it redact the words themselves.
 */
function normalizeSpokenDigits(text: string): { text: string; map: number[]; ends: number[] } {
  const tokens = [...text.matchAll(/[A-Za-z]+/g)];
  const word = (index: number) => tokens[index]![0].toLowerCase();
  const endOf = (index: number) => tokens[index]!.index + tokens[index]![0].length;
  const isDigit = (index: number) => DIGIT_WORDS[word(index)] !== undefined;
  // "double five", "triple oh": a repeat word counts with the digit word right after it.
  const isRepeat = (index: number) => REPEAT_WORDS[word(index)] !== undefined && index + 1 < tokens.length && isDigit(index + 1) && /^\s+$/.test(text.slice(endOf(index), tokens[index + 1]!.index));
  const inRun = (index: number) => isDigit(index) || isRepeat(index);
  const out: string[] = [];
  const map: number[] = [];
  const ends: number[] = [];
  let copied = 0;
  let index = 0;
  while (index < tokens.length) {
    if (!inRun(index)) {
      index += 1;
      continue;
    }
    // A run: digit words separated only by spaces, commas or dashes; four or more digits are read as digits.
    let next = index + 1;
    while (next < tokens.length && inRun(next) && /^[\s,-]*$/.test(text.slice(endOf(next - 1), tokens[next]!.index))) next += 1;
    let digits = 0;
    for (let t = index; t < next; t++) digits += isRepeat(t) ? REPEAT_WORDS[word(t)]! - 1 : 1;
    if (digits >= 4) {
      for (let i = copied; i < tokens[index]!.index; i++) {
        out.push(text[i]!);
        map.push(i);
        ends.push(i + 1);
      }
      let repeat = 1;
      let repeatStart: number | null = null;
      for (let t = index; t < next; t++) {
        if (isRepeat(t)) {
          repeat = REPEAT_WORDS[word(t)]!;
          repeatStart = tokens[t]!.index;
          continue;
        }
        for (let r = 0; r < repeat; r++) {
          out.push(DIGIT_WORDS[word(t)]!);
          map.push(r === 0 && repeatStart !== null ? repeatStart : tokens[t]!.index);
          ends.push(endOf(t));
        }
        repeat = 1;
        repeatStart = null;
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

/** The number in E.164 when it is valid, not merely possible (full metadata), for comparing with the exempt numbers. */
function normalizedPhone(raw: string): string | null {
  const parsed = parsePhoneNumberFromString(raw.trim(), "US");
  return parsed?.isValid() ? parsed.number : null;
}

/** Valid phone numbers in the text with their extent (the dial-out prefix included), national ones read in each country. */
function findPhones(text: string, countries: readonly CountryCode[]): Array<{ start: number; end: number; number: string }> {
  const prefixes = new Map<number, number>();
  const rewritten = text.replace(DIAL_OUT, (prefix, at: number) => {
    prefixes.set(at + prefix.length - 1, at);
    return `${" ".repeat(prefix.length - 1)}+`;
  });
  return countries.flatMap((defaultCountry) =>
    findPhoneNumbersInText(rewritten, { defaultCountry }).map((found) => ({
      start: prefixes.get(found.startsAt) ?? found.startsAt,
      end: found.endsAt,
      number: found.number.number,
    })),
  );
}

const CONTEXT_WINDOW = 40;
const DOB_CONTEXT = /\b(born|birth|birthday|birthdate|date of birth|dob|d\.o\.b)\b/i;
const MONTHS = "(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)";
const DATE_PATTERN = new RegExp(
  `\\b(?:\\d{1,2}[/.-]\\d{1,2}[/.-](?:\\d{4}|\\d{2})|\\d{4}-\\d{2}-\\d{2}|${MONTHS}\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s+\\d{4}|\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTHS},?\\s+\\d{4})\\b`,
  "gi",
);
const EMAIL_PATTERN = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
/** "bob at corp dot com", "mary underscore lee at yahoo dot co dot uk": spoken words joined by dot/underscore/dash. */
const SPOKEN_LOCAL_PART = "[A-Za-z0-9._%+-]+(?:\\s+(?:dot|underscore|dash|hyphen|period)\\s+[A-Za-z0-9._%+-]+)*";
const EMAIL_SPOKEN = new RegExp(`${SPOKEN_LOCAL_PART}\\s+at\\s+[A-Za-z0-9-]+(?:\\s+dot\\s+[A-Za-z0-9-]+)*\\s+dot\\s+[A-Za-z]{2,}\\b`, "gi");

function near(text: string, start: number, end: number, context: RegExp): boolean {
  return context.test(text.slice(Math.max(0, start - CONTEXT_WINDOW), Math.min(text.length, end + 12)));
}

/** When finds overlap, the merged marker is the most specific category's. */
const PRIORITY = ["card", "ssn", "routing-number", "bank-account", "date-of-birth", "email", "phone"];
const priorityOf = (category: string) => {
  const index = PRIORITY.indexOf(category);
  return index < 0 ? PRIORITY.length : index;
};

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
  // National numbers ("(415) 555-0199", "020 7946 0958") are read as US numbers and as numbers of the contact's country.
  const contactCountry = exemptions.phoneNumbers.map((number) => parsePhoneNumberFromString(number)?.country).find(Boolean);
  const countries: CountryCode[] = contactCountry && contactCountry !== "US" ? ["US", contactCountry] : ["US"];
  const exemptPhones = new Set(exemptions.phoneNumbers.map((number) => normalizedPhone(number)).filter((number): number is string => !!number));
  const exemptEmails = new Set(exemptions.emails.map((email) => email.trim().toLowerCase()).filter(Boolean));
  const custom = settings.patterns.filter((entry) => customPatternProblem(entry.pattern) === null).map((entry) => ({ name: entry.name, regex: new RegExp(entry.pattern, "giu") }));

  /** Card, SSN, IBAN, routing, account and phone numbers, and dates of birth: each needs a digit. */
  function findNumbers(text: string, add: (start: number, end: number, category: string) => void): void {
    const kept = findKeptSpans(text);
    const ibans = enabled.has("bank-account") ? findIbans(text) : [];
    const insideIban = (start: number, end: number) => ibans.some((iban) => start < iban.end && end > iban.start);
    /**
     * A number that may be sensitive: not inside a date, time, price, … or an IBAN (whose digits are no card), and not
     * labelled as an order, invoice or ZIP; with the label said before (or right after) it.
     */
    const candidate = (start: number, end: number) => {
      if (kept.overlaps(start, end) || insideIban(start, end)) return null;
      const label = labelOf(text, start, end);
      return label === "reference" || label === "zip" ? null : { label };
    };

    for (const { start, end, digits } of digitRuns(text)) {
      // A card number is proven by its brand, length and Luhn: no label keeps it ("pay for my order, 4111 1111 …").
      if (enabled.has("card") && isCardNumber(digits) && !kept.overlaps(start, end) && !insideIban(start, end)) {
        add(start, end, "card");
        continue;
      }
      const context = candidate(start, end);
      if (!context) continue;
      if (enabled.has("ssn") && context.label === "ssn" && digits.length === 9 && ssnValid(digits.slice(0, 3), digits.slice(3, 5), digits.slice(5))) add(start, end, "ssn");
      else if (enabled.has("routing-number") && context.label === "routing" && abaValid(digits)) add(start, end, "routing-number");
      else if (enabled.has("bank-account") && context.label === "account" && digits.length >= 6 && digits.length <= 17) add(start, end, "bank-account");
    }
    if (enabled.has("ssn")) {
      for (const match of text.matchAll(SSN_SHAPE)) {
        const end = match.index + match[0].length;
        if (ssnValid(match[1]!, match[3]!, match[4]!) && candidate(match.index, end)) add(match.index, end, "ssn");
      }
    }
    for (const iban of ibans) add(iban.start, iban.end, "bank-account");
    if (enabled.has("phone")) {
      const phones = findPhones(text, countries);
      for (const phone of phones) {
        if (!exemptPhones.has(phone.number) && candidate(phone.start, phone.end)) add(phone.start, phone.end, "phone");
      }
      for (const match of text.matchAll(LOCAL_PHONE)) {
        const end = match.index + match[0].length;
        if (phones.some((phone) => match.index < phone.end && end > phone.start)) continue;
        if (candidate(match.index, end)?.label === "phone") add(match.index, end, "phone");
      }
    }
    if (enabled.has("date-of-birth")) {
      for (const match of text.matchAll(DATE_PATTERN)) {
        if (near(text, match.index, match.index + match[0].length, DOB_CONTEXT)) add(match.index, match.index + match[0].length, "date-of-birth");
      }
    }
  }

  function find(text: string): Span[] {
    const spans: Span[] = [];
    const add = (start: number, end: number, category: string) => spans.push({ start, end, category });
    if (/\d/.test(text)) findNumbers(text, add);
    if (enabled.has("email")) {
      for (const match of text.matchAll(EMAIL_PATTERN)) if (!exemptEmails.has(match[0].toLowerCase())) add(match.index, match.index + match[0].length, "email");
      for (const match of text.matchAll(EMAIL_SPOKEN)) {
        const written = match[0]
          .replace(/\s+at\s+/i, "@")
          .replace(/\s+(?:dot|period)\s+/gi, ".")
          .replace(/\s+underscore\s+/gi, "_")
          .replace(/\s+(?:dash|hyphen)\s+/gi, "-")
          .toLowerCase();
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
      if (previous && span.start < previous.end) {
        previous.end = Math.max(previous.end, span.end);
        if (priorityOf(span.category) < priorityOf(previous.category)) previous.category = span.category;
      } else merged.push({ ...span });
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
