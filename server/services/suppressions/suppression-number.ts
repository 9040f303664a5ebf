import { AppError } from "@/server/errors";
import { MAX_PHONE_NUMBER_LENGTH } from "@/server/schemas/limits";
import { isSafeText } from "@/server/schemas/text";
import { normalizePhoneNumber } from "@/server/services/phone/normalize-phone-number";

/**
 * The E.164 number a suppression is kept under, from a number in any format (the enrollment normalizer: without a
 * country code a number is read as North American; an extension is dropped — a suppressed number is suppressed on
 * every extension). Null for anything that is not a string of at most 64 characters holding a valid number.
 */
export function suppressionNumberOf(value: unknown): string | null {
  if (typeof value !== "string" || value.length > MAX_PHONE_NUMBER_LENGTH || !isSafeText(value)) return null;
  return normalizePhoneNumber(value)?.e164 ?? null;
}

/** As `suppressionNumberOf`, for a single number given by the caller (filter, path): 400 INVALID_PHONE_NUMBER otherwise. */
export function requireSuppressionNumber(value: string, field: string): string {
  const e164 = suppressionNumberOf(value);
  if (!e164) throw new AppError("INVALID_PHONE_NUMBER", `${field}: ${JSON.stringify(value.slice(0, MAX_PHONE_NUMBER_LENGTH))} is not a valid phone number.`);
  return e164;
}
