import { SimError } from "./sim-error";

const SLOT_MINUTES = 30;
const NOTICE_MS = 60 * 60 * 1000;
const MAX_SLOTS = 200;

export function parseDuration(value: unknown): number | null {
  if (typeof value !== "string") return null;
  const iso = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?)?$/.exec(value);
  if (iso && value !== "P" && value !== "PT") {
    return ((Number(iso[1] ?? 0) * 24 + Number(iso[2] ?? 0)) * 60 + Number(iso[3] ?? 0)) * 60_000;
  }
  const words = /^(\d+)\s*(day|days|hour|hours|minute|minutes)$/.exec(value.trim());
  if (!words) return null;
  const n = Number(words[1]);
  const unit = words[2]!.startsWith("day") ? 86_400_000 : words[2]!.startsWith("hour") ? 3_600_000 : 60_000;
  return n * unit;
}

/**
 * Slots of a host inside the requested interval: every 30 minutes from 14:00 to 21:30 UTC (09:00–17:00 US East),
 * Monday to Friday, at least an hour after the interval starts, skipping those `isBusy` reports (the host's meetings).
 * The interval is taken as given (no clock check), so seeds can book historical meetings through the same flow.
 */
export function openSlots(interval: unknown, durationMinutes: number, isBusy: (start: number, end: number) => boolean): string[] {
  const body = interval as { startsAt?: unknown; duration?: unknown } | undefined;
  const startsAt = typeof body?.startsAt === "string" ? Date.parse(body.startsAt) : NaN;
  const span = parseDuration(body?.duration ?? "P7D");
  if (!Number.isFinite(startsAt) || span === null || span <= 0 || span > 31 * 86_400_000) {
    throw new SimError(400, "InvalidInterval", "interval must be {startsAt: ISO-8601, duration: e.g. P7D}");
  }
  const result: string[] = [];
  const step = SLOT_MINUTES * 60_000;
  let t = Math.ceil((startsAt + NOTICE_MS) / step) * step;
  const end = startsAt + span;
  while (t + durationMinutes * 60_000 <= end && result.length < MAX_SLOTS) {
    const d = new Date(t);
    const day = d.getUTCDay();
    const minutes = d.getUTCHours() * 60 + d.getUTCMinutes();
    if (day >= 1 && day <= 5 && minutes >= 14 * 60 && minutes <= 21 * 60 + 30 && !isBusy(t, t + durationMinutes * 60_000)) {
      result.push(d.toISOString());
    }
    t += step;
  }
  return result;
}
