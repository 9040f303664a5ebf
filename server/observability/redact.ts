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

/** Fields whose values are secrets wherever they appear (censored whole) or phone numbers (masked). */
export const SECRET_FIELDS = ["apiKey", "password", "secret", "token", "authorization", "cookie", "x-api-key", "signingSecret", "webhookSecret"];
export const PHONE_FIELDS = ["phoneNumber", "fromPhoneNumber", "toPhoneNumber", "to", "from", "phone"];
const SECRET_FIELD_SET = new Set(SECRET_FIELDS.map((name) => name.toLowerCase()));
const PHONE_FIELD_SET = new Set(PHONE_FIELDS);
const PHONE_LIKE = /^\+?[\d\s().-]{5,}$/;

/** A field's value as logged: secret fields censored whole, phone fields masked (when they hold a number). */
export function censorField(key: string, value: unknown): unknown {
  if (PHONE_FIELD_SET.has(key)) return typeof value === "string" && PHONE_LIKE.test(value) ? maskPhoneNumber(value) : value;
  return SECRET_FIELD_SET.has(key.toLowerCase()) ? "[redacted]" : value;
}

/**
 * A copy of a log object with the secret and phone fields of every level censored (censorField) and every string
 * scrubbed (bounded depth and width; other values as they are). One walk does both: pino's own `redact` with
 * wildcard paths cost ~4× the rest of a request log line.
 */
export function scrubValue(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return scrubText(value);
  if (value === null || typeof value !== "object" || depth >= 6) return value;
  // Errors are left to the logger's error serializer (which scrubs what it keeps).
  if (value instanceof Date || value instanceof Error || Buffer.isBuffer(value)) return value;
  if (Array.isArray(value)) return value.slice(0, 100).map((item) => scrubValue(item, depth + 1));
  const out: Record<string, unknown> = {};
  let count = 0;
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    if (++count > 100) break;
    const censored = censorField(key, (value as Record<string, unknown>)[key]);
    out[key] = typeof censored === "string" && censored === "[redacted]" ? censored : scrubValue(censored, depth + 1);
  }
  return out;
}
