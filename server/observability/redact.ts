/**
 * What must never reach a log line in full: API keys (`ock_…`), webhook secrets (`whsec_…`) and phone numbers.
 * Phone numbers keep their last 4 digits (enough to tell calls apart in support); keys keep their visible prefix
 * (the 12 characters the dashboard shows). The logger applies these to every line (server/observability/logger.ts);
 * code that builds a message around a number calls `maskPhoneNumber` itself.
 */

/** `+14155550171` → `+*******0171`; anything with fewer than 5 digits is masked whole. */
export function maskPhoneNumber(value: string): string {
  const digits = value.replace(/\D/g, "");
  if (digits.length < 5) return "****";
  return `${value.trim().startsWith("+") ? "+" : ""}${"*".repeat(digits.length - 4)}${digits.slice(-4)}`;
}

const API_KEY = /\bock_([a-z0-9]{8})[a-z0-9]{4,}/gi;
const WEBHOOK_SECRET = /\bwhsec_[A-Za-z0-9+/=_-]{6,}/g;
/** E.164 (`+` and 8–15 digits) inside any text. */
const E164 = /\+[1-9]\d{7,14}(?!\d)/g;

/** The text with API keys cut to their prefix, webhook secrets removed and E.164 numbers masked. */
export function scrubText(text: string): string {
  if (!text.includes("ock_") && !text.includes("whsec_") && !text.includes("+")) return text;
  return text
    .replace(API_KEY, (_match, prefix: string) => `ock_${prefix}…`)
    .replace(WEBHOOK_SECRET, "whsec_[redacted]")
    .replace(E164, (match) => maskPhoneNumber(match));
}

/** A copy of a log object with every string scrubbed (bounded depth and width; other values as they are). */
export function scrubValue(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return scrubText(value);
  if (value === null || typeof value !== "object" || depth >= 6) return value;
  // Errors are left to the logger's error serializer (which scrubs what it keeps).
  if (value instanceof Date || value instanceof Error || Buffer.isBuffer(value)) return value;
  if (Array.isArray(value)) return value.slice(0, 100).map((item) => scrubValue(item, depth + 1));
  const out: Record<string, unknown> = {};
  let count = 0;
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if (++count > 100) break;
    out[key] = scrubValue(item, depth + 1);
  }
  return out;
}

/** Fields whose values are secrets wherever they appear (censored whole) or phone numbers (masked). */
export const SECRET_FIELDS = ["apiKey", "password", "secret", "token", "authorization", "cookie", "x-api-key", "signingSecret", "webhookSecret"];
export const PHONE_FIELDS = ["phoneNumber", "fromPhoneNumber", "toPhoneNumber", "to", "from", "phone"];

/** pino `redact.paths`: the fields above at the top level and one or two levels down, plus request headers. */
export function redactPaths(): string[] {
  const keys = [...SECRET_FIELDS, ...PHONE_FIELDS];
  const paths: string[] = [];
  for (const key of keys) {
    const segment = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `["${key}"]`;
    const join = (prefix: string) => (segment.startsWith("[") ? `${prefix}${segment}` : `${prefix}.${segment}`);
    paths.push(segment.startsWith("[") ? segment : key, join("*"), join("*.*"));
  }
  paths.push('req.headers["x-api-key"]', "req.headers.authorization", "req.headers.cookie");
  return paths;
}

/** pino's censor: phone fields are masked (when they hold a number), everything else is replaced. */
export function censor(value: unknown, path: string[]): unknown {
  const field = path[path.length - 1] ?? "";
  if (PHONE_FIELDS.includes(field)) {
    if (typeof value !== "string") return value;
    return /^\+?[\d\s().-]{5,}$/.test(value) ? maskPhoneNumber(value) : value;
  }
  return "[redacted]";
}
