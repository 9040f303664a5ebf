import { DateTime } from "luxon";
import { consentTypes, type ConsentRecord, type ConsentType } from "@/db/schema";
import { MAX_DATETIME_LENGTH, MAX_DESCRIPTION_LENGTH, MAX_URL_LENGTH } from "@/server/schemas/limits";
import { isSafeText, UNSAFE_TEXT_MESSAGE } from "@/server/schemas/text";

/** A capture time this far ahead of the server's clock is accepted (clock skew of the integrator's systems). */
const CAPTURED_AT_SKEW_MS = 5 * 60 * 1000;
const CONSENT_FIELDS = new Set(["type", "capturedAt", "source", "evidenceUrl"]);

export type ConsentParse = { ok: true; consent: ConsentRecord | null } | { ok: false; reason: "MISSING_CONSENT" | "INVALID_CONSENT"; message: string };

function invalid(message: string): ConsentParse {
  return { ok: false, reason: "INVALID_CONSENT", message: `consent: ${message}` };
}

/**
 * A contact's `consent` as sent: absent/null → null (MISSING_CONSENT when the organization requires consent);
 * otherwise an object `{type, capturedAt, source, evidenceUrl?}` and nothing else, or INVALID_CONSENT saying what is
 * wrong. `capturedAt` is an ISO 8601 date-time with an offset (stored in UTC), not in the future; `source` is 1–1,000
 * characters; `evidenceUrl` an http(s) URL of at most 2,048 characters (recorded, never fetched).
 */
export function parseConsent(value: unknown, options: { required: boolean; now: Date }): ConsentParse {
  if (value === undefined || value === null) {
    return options.required
      ? { ok: false, reason: "MISSING_CONSENT", message: "consent is required: this organization enrolls only contacts with a consent record." }
      : { ok: true, consent: null };
  }
  if (typeof value !== "object" || Array.isArray(value)) return invalid("must be an object {type, capturedAt, source, evidenceUrl?}.");
  const raw = value as Record<string, unknown>;
  const unknown = Object.keys(raw).find((key) => !CONSENT_FIELDS.has(key));
  if (unknown !== undefined) return invalid(`unknown field ${JSON.stringify(unknown.slice(0, 64))} (expected type, capturedAt, source, evidenceUrl).`);

  if (typeof raw.type !== "string" || !(consentTypes as readonly string[]).includes(raw.type)) {
    return invalid(`type must be one of ${consentTypes.join(", ")}.`);
  }
  if (typeof raw.capturedAt !== "string" || raw.capturedAt.length > MAX_DATETIME_LENGTH) {
    return invalid("capturedAt must be an ISO 8601 date-time with an offset, e.g. 2026-11-02T14:30:00Z.");
  }
  const capturedAt = DateTime.fromISO(raw.capturedAt, { setZone: true });
  if (!capturedAt.isValid || !/^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:?\d{2})$/.test(raw.capturedAt)) {
    return invalid("capturedAt must be an ISO 8601 date-time with an offset, e.g. 2026-11-02T14:30:00Z.");
  }
  if (capturedAt.toMillis() > options.now.getTime() + CAPTURED_AT_SKEW_MS) return invalid("capturedAt is in the future.");
  if (typeof raw.source !== "string" || raw.source.trim() === "") return invalid("source is required (where consent was captured, e.g. a form's URL).");
  if (raw.source.length > MAX_DESCRIPTION_LENGTH) return invalid(`source is longer than ${MAX_DESCRIPTION_LENGTH.toLocaleString("en-US")} characters.`);
  if (!isSafeText(raw.source)) return invalid(`source ${UNSAFE_TEXT_MESSAGE}.`);

  let evidenceUrl: string | null = null;
  if (raw.evidenceUrl !== undefined && raw.evidenceUrl !== null) {
    if (typeof raw.evidenceUrl !== "string" || raw.evidenceUrl.length > MAX_URL_LENGTH || !isSafeText(raw.evidenceUrl) || !URL.canParse(raw.evidenceUrl)) {
      return invalid(`evidenceUrl must be an http(s) URL of at most ${MAX_URL_LENGTH.toLocaleString("en-US")} characters.`);
    }
    const url = new URL(raw.evidenceUrl);
    if (url.protocol !== "https:" && url.protocol !== "http:") return invalid("evidenceUrl must be an http(s) URL.");
    evidenceUrl = raw.evidenceUrl;
  }
  return {
    ok: true,
    consent: { type: raw.type as ConsentType, capturedAt: capturedAt.toUTC().toISO()!, source: raw.source.trim(), evidenceUrl },
  };
}
