import { nextAllowedTime, type QuietHoursContact } from "@/server/services/compliance/quiet-hours";
import type { DialCandidate, DialCheck, GateVerdict } from "./dial-gate";

/**
 * The compliance checks of the dial gate (issue 17, docs/compliance.md). They run in the claim transaction after the
 * state re-checks and the agent's calling window, before the dial-rate slots, so a call they stop takes no slot.
 * None of them is bypassed by `bypassCallWindows`: that flag skips the agent's windows only.
 */

/** How long to look ahead when nothing opens within the quiet-hours search (no table entry allows it; a safety net). */
const QUIET_HOURS_FALLBACK_MS = 86_400_000;

function contactOf({ sequence }: DialCandidate): QuietHoursContact {
  return { phoneNumber: sequence.phoneNumber, timezone: sequence.timezone };
}

/**
 * Quiet hours: the federal 8:00–21:00 window and the stricter hours, days and holidays of the contact's country and
 * US state (from the area code), in the contact's timezone. A call outside is moved to the next allowed moment
 * (`rescheduledAt` records the move). Always on: there is no organization setting that turns it off.
 */
export const quietHoursCheck: DialCheck = {
  name: "quiet-hours",
  run: ({ now }, candidates) => {
    const verdicts = new Map<string, GateVerdict>();
    for (const candidate of candidates) {
      const allowedAt = nextAllowedTime(now, contactOf(candidate));
      if (allowedAt && allowedAt.getTime() <= now.getTime()) continue;
      verdicts.set(candidate.call.id, { action: "defer", until: allowedAt ?? new Date(now.getTime() + QUIET_HOURS_FALLBACK_MS), reason: "quiet-hours" });
    }
    return verdicts;
  },
};
