/**
 * What redaction reads around a number before calling it sensitive: the label a speaker put on it ("account number",
 * "order #", "my cell") and the spans that are values of their own — dates, times, timestamps, durations, prices,
 * percentages, ZIP codes, identifiers with letters — which are never redacted as card, SSN, account, routing or phone
 * numbers (issue 34: "2026-12-02 15:30:00" read as the phone number 202-612-0215).
 *
 * Hand-written: no maintained library finds these spans in free text with their extents and nothing more (chrono-node
 * parses dates but also reads "4 1 5" or "at 5" as times, which would hide phone numbers); the patterns are
 * deliberately narrow and each is covered by the labelled corpus in tests/fixtures/redaction-corpus.ts.
 */

export type LabelGroup = "account" | "routing" | "ssn" | "phone" | "reference" | "zip";

/** Words that say what the next number is. Longer spellings first: the alternation takes the first that matches. */
const LABEL_WORDS: Record<LabelGroup, string> = {
  account: "checking|savings|account|acct|a/c",
  routing: "routing|aba|transit|sort code",
  ssn: "social security|social|ssn|ss number|taxpayer id|tax id|itin",
  phone: "cellphone|cell|mobile|phone|telephone|landline|whatsapp|fax|calling|call|text|reach|dial|ring",
  reference:
    "purchase order|order|invoice|inv|po|confirmation|reference|ref|ticket|case|tracking|booking|reservation|receipt|rma|claim|quote|transaction|serial|model|registration|flight|room|extension|batch|version|sku|item|part|lot|policy|member|loyalty|meeting id|meeting|conference id|access code|passcode",
  zip: "zip code|zipcode|zip|postal code|postcode",
};
const LABEL_GROUPS = Object.keys(LABEL_WORDS) as LabelGroup[];
const LABEL = new RegExp(LABEL_GROUPS.map((group) => `(?<${group}>\\b(?:${LABEL_WORDS[group]})(?![a-z]))`).join("|"), "gi");
/** "…number on my account is": the word after `on my` names where the number is kept, not what it is. */
const ATTRIBUTIVE = /^\s*(?:number|no\.?|num|#|code|id)?\s*(?:on|of|for|from|with|under|in)\s+(?:(?:my|the|your|our|this|that|his|her|their)\s+)?$/i;
/**
 * A label that keeps a number (an order, invoice, ZIP …) must name it, not merely come before it: "order number is",
 * "order #", "the order number on my account is" — but not "call me about the order at 415-555-0199".
 */
const NAMING = /^\s*(?:(?:number|no\.?|num|#|id|code)\s*)?(?:(?:on|of|for|in|under|from)\s+(?:(?:my|the|your|our|this|that|his|her|their)\s+)?\w+\s*)?(?:(?:is|was|'s|are)\s*|[:=#-]\s*)*$/i;
/** "4155550199 is my cell": a label right after the number, read when none comes before it. */
const TRAILING = /^\s*,?\s*(?:is|was|'s)\s+(?:(?:my|the|our|his|her|their|your)\s+)?(?:\w+\s+)?$/i;
const LABEL_WINDOW = 48;

function groupOf(match: RegExpExecArray | RegExpMatchArray): LabelGroup {
  return LABEL_GROUPS.find((group) => match.groups?.[group] !== undefined)!;
}

/**
 * The label of the number at `start…end`: the nearest label word before it (within 48 characters), else one right
 * after it. Labels that keep a number (reference, zip) count only when they name it (NAMING).
 */
export function labelOf(text: string, start: number, end: number): LabelGroup | null {
  const from = Math.max(0, start - LABEL_WINDOW);
  const window = text.slice(from, start);
  const labels = [...window.matchAll(LABEL)];
  for (let index = labels.length - 1; index >= 0; index--) {
    const label = labels[index]!;
    const previous = labels[index - 1];
    if (previous && ATTRIBUTIVE.test(window.slice(previous.index + previous[0].length, label.index))) continue;
    const group = groupOf(label);
    if ((group === "reference" || group === "zip") && !NAMING.test(window.slice(label.index + label[0].length))) continue;
    return group;
  }
  const after = text.slice(end, end + 32);
  for (const label of after.matchAll(LABEL)) {
    if (TRAILING.test(after.slice(0, label.index))) return groupOf(label);
    break;
  }
  return null;
}

const MONTH = "(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)";
const DAY = "(?:0?[1-9]|[12]\\d|3[01])";
const MONTH_NUMBER = "(?:0?[1-9]|1[0-2])";
const YEAR = "(?:19|20)\\d{2}";
const MERIDIEM = "[ap]\\.?m\\.?(?![a-z])";
const CLOCK = "[0-2]?\\d:[0-5]\\d(?::[0-5]\\d(?:[.,]\\d+)?)?";
const ZONE = "(?:Z|[+-][0-2]\\d:?[0-5]\\d)";
const UNIT = "seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|wks?|months?|mos?|years?|yrs?|milliseconds?|ms";

/** Values that are never sensitive numbers: each pattern is one kind of value the issue names. */
const KEPT_PATTERNS: RegExp[] = [
  // ISO dates and timestamps: 2026-12-02, 2026-12-02 15:30:00, 2026-12-02T20:30:00.000Z, 2026/12/02, 2026.12.02 15:30.
  new RegExp(`\\b${YEAR}([-/.])${MONTH_NUMBER}\\1${DAY}(?:(?:[T ]|\\s+at\\s+)${CLOCK}(?:\\s*${ZONE})?)?(?![\\d])`, "gi"),
  // Basic ISO (20261202T153000Z) and digits-only timestamps to the minute (202612021530, 20261202153000).
  new RegExp(`\\b${YEAR}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\\d|3[01])(?:T[0-2]\\d[0-5]\\d(?:[0-5]\\d)?Z?|[0-2]\\d[0-5]\\d(?:[0-5]\\d)?)\\b`, "gi"),
  // Numeric dates, month or day first: 12/02/2026, 2-12-26, 02.12.2026, 12 02 2026, then 12/14.
  new RegExp(`\\b${DAY}([/.-])${DAY}\\1(?:${YEAR}|\\d{2})\\b(?:[ T]${CLOCK}(?:\\s*${MERIDIEM})?)?`, "g"),
  new RegExp(`\\b${MONTH_NUMBER} ${DAY} ${YEAR}\\b`, "g"),
  new RegExp(`\\b${MONTH_NUMBER}/${DAY}\\b(?![/.-]\\d)`, "g"),
  // Dates in words: December 2, Dec. 2nd, 2026, the 2nd of December 2026.
  new RegExp(`\\b${MONTH}\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?(?:,?\\s+${YEAR})?\\b`, "gi"),
  new RegExp(`\\b\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH}\\b(?:,?\\s+${YEAR})?`, "gi"),
  // Times: 3:30, 15:30:00.5, 3:30 PM, 9.30 a.m., 10 am, 1530 hours.
  new RegExp(`\\b${CLOCK}(?:\\s*${MERIDIEM})?`, "gi"),
  new RegExp(`\\b[0-2]?\\d(?:\\.[0-5]\\d)?\\s*${MERIDIEM}`, "gi"),
  /\b[0-2]\d[0-5]\d\s*hours\b/gi,
  // Durations and other counts of time: 90 minutes, 3 to 5 days, 1.5 hrs, 2h, a 36-month contract.
  new RegExp(`\\b\\d[\\d,.]*(?:\\s*(?:-|–|to)\\s*\\d[\\d,.]*)?\\s*(?:${UNIT})\\b`, "gi"),
  /\b\d+(?:\.\d+)?[hms]\b/gi,
  /\b\d+-(?:second|minute|hour|day|week|month|year)\b/gi,
  // Money: $1,299.00, USD 4,500, €2.026,12, 49.99 dollars, 1.299,00 €.
  /(?:[$€£¥₹]|\b(?:usd|eur|gbp|cad|aud|jpy|mxn|inr)\b)\s?\d[\d,.]*(?:\s?(?:k|m|bn|million|billion|thousand)\b)?/gi,
  /\b\d[\d,.]*\s?(?:[€£¥]|(?:dollars?|bucks|usd|eur|euros?|gbp|pounds?|cents?|yen|pesos?|rupees?)\b)/gi,
  // Percentages: 15%, 2.5 percent, 8.875 %.
  /\b\d+(?:[.,]\d+)?\s?(?:%|percent\b|per cent\b|percentile\b)/gi,
  // A US ZIP after a state code: CA 94105, TX 78701-2345 (ZIPs after "zip" are kept by their label).
  /\b[A-Z]{2}\s+\d{5}(?:-\d{4})?\b/g,
  // Identifiers with letters: INV-2026-120215, SN-4829-1173, QX7-4410, 1Z999AA10123456784.
  /\b(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Za-z])[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+\b/g,
  /\b(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{5,}\b/g,
];

export type KeptSpans = { overlaps(start: number, end: number): boolean };

/** The spans of `text` that hold dates, times, durations, prices, percentages, ZIPs or lettered identifiers. */
export function findKeptSpans(text: string): KeptSpans {
  const spans: Array<[number, number]> = [];
  for (const pattern of KEPT_PATTERNS) {
    for (const match of text.matchAll(pattern)) if (match[0].length > 0) spans.push([match.index, match.index + match[0].length]);
  }
  return { overlaps: (start, end) => spans.some(([from, to]) => start < to && end > from) };
}
