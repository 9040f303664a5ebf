import { AppError } from "@/server/errors";
import { normalizePhoneNumber } from "@/server/services/phone/normalize-phone-number";

/** E.164 of a number given in `field`; INVALID_PHONE_NUMBER (400) naming the field otherwise. */
export function e164OfField(field: string, raw: string): string {
  const normalized = normalizePhoneNumber(raw);
  if (!normalized || normalized.extension) throw new AppError("INVALID_PHONE_NUMBER", `${field}: "${raw.slice(0, 40)}" is not a phone number (E.164, e.g. +14155550171)`);
  return normalized.e164;
}
