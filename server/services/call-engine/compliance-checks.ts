import { DateTime } from "luxon";
import { countCallsInFlight, findAutoPauseWindows, findCreditsSpentSince, findDialTimesOfNumbers } from "@/db/queries/dial-limits";
import { pauseAgentAutomatically } from "@/db/queries/agents";
import { attemptsAllowed, callingRulesFor, nextAllowedTime, type QuietHoursContact } from "@/server/services/compliance/quiet-hours";
import { getConfig } from "@/server/config/env";
import type { DialCandidate, DialCheck, GateVerdict } from "./dial-check";

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
 * (`rescheduledAt` records the move). On for every organization; only a test deployment turns it off
 * (`COMPLIANCE_QUIET_HOURS=off`, the e2e server calling simulated numbers at any hour).
 */
export const quietHoursCheck: DialCheck = {
  name: "quiet-hours",
  run: ({ now }, candidates) => {
    const verdicts = new Map<string, GateVerdict>();
    if (!getConfig().COMPLIANCE_QUIET_HOURS) return verdicts;
    for (const candidate of candidates) {
      const allowedAt = nextAllowedTime(now, contactOf(candidate));
      if (allowedAt && allowedAt.getTime() <= now.getTime()) continue;
      verdicts.set(candidate.call.id, { action: "defer", until: allowedAt ?? new Date(now.getTime() + QUIET_HOURS_FALLBACK_MS), reason: "quiet-hours" });
    }
    return verdicts;
  },
};

/**
 * Attempt caps of the contact's state (Florida, Maryland, Oklahoma: 3 per 24 h; Maine: 1 per 8 h): every dial of the
 * organization to the number counts, whatever the agent or sequence. A call over the cap is deferred to the moment
 * the oldest counted attempt leaves the period, never dropped. Calls of this round that pass count as attempts for
 * the ones after them (a call that then waits for a slot was counted: the cap errs on the safe side).
 */
export const attemptCapCheck: DialCheck = {
  name: "attempt-cap",
  run: async ({ tx, now }, candidates) => {
    const verdicts = new Map<string, GateVerdict>();
    const capped = candidates
      .map((candidate) => ({ candidate, caps: callingRulesFor(contactOf(candidate)).rules.flatMap((rule) => (rule.attemptCap ? [rule.attemptCap] : [])) }))
      .filter(({ caps }) => caps.length > 0);
    if (capped.length === 0) return verdicts;
    const longestHours = Math.max(...capped.flatMap(({ caps }) => caps.map((cap) => cap.perHours)));
    const rows = await findDialTimesOfNumbers(tx, {
      organizationIds: [...new Set(capped.map(({ candidate }) => candidate.call.organizationId))],
      phoneNumbers: [...new Set(capped.map(({ candidate }) => candidate.sequence.phoneNumber))],
      since: new Date(now.getTime() - longestHours * 3_600_000),
      until: now,
    });
    const attempts = new Map<string, Date[]>();
    const keyOf = (organizationId: string, phoneNumber: string) => `${organizationId}\u0000${phoneNumber}`;
    for (const row of rows) {
      const key = keyOf(row.organizationId, row.phoneNumber);
      attempts.set(key, [...(attempts.get(key) ?? []), row.dialedAt]);
    }
    for (const { candidate } of capped) {
      const key = keyOf(candidate.call.organizationId, candidate.sequence.phoneNumber);
      const previousAttempts = attempts.get(key) ?? [];
      const decision = attemptsAllowed({ contact: contactOf(candidate), at: now, previousAttempts });
      if (decision.allowed) {
        attempts.set(key, [...previousAttempts, now]);
        continue;
      }
      verdicts.set(candidate.call.id, { action: "defer", until: decision.nextAllowedAt!, reason: "attempt-cap" });
    }
    return verdicts;
  },
};

/**
 * Auto-pause: an agent with auto-pause on whose last N finished calls (default 50; in dial order, up to its earliest
 * call still in progress: see findAutoPauseWindows) include more than X % (default 30)
 * `Failed` or `Invalid Phone Number` becomes PAUSED (`pause_source` 'auto-pause', the reason recorded); its calls
 * wait like any paused agent's. The window must be full (N calls since the agent was last paused) before it counts,
 * so a handful of early failures does not pause a new agent, and a resumed agent starts a fresh window.
 */
export const autoPauseCheck: DialCheck = {
  name: "auto-pause",
  run: async ({ tx, now }, candidates) => {
    const verdicts = new Map<string, GateVerdict>();
    const agentsById = new Map(candidates.filter(({ agent }) => agent.autoPauseEnabled).map(({ agent }) => [agent.id, agent]));
    if (agentsById.size === 0) return verdicts;
    const windows = await findAutoPauseWindows(tx, { agentIds: [...agentsById.keys()] });
    const paused = new Set<string>();
    for (const [agentId, results] of windows) {
      const agent = agentsById.get(agentId)!;
      if (results.length < agent.autoPauseWindowCalls) continue;
      const failures = results.filter((result) => AUTO_PAUSE_FAILURES.has(result)).length;
      if (failures * 100 <= agent.autoPauseFailurePercent * results.length) continue;
      const percent = Math.round((failures * 100) / results.length);
      const reason =
        `Auto-paused: ${failures} of the last ${results.length} calls (${percent} %) ended Failed or Invalid Phone Number, ` +
        `over the ${agent.autoPauseFailurePercent} % threshold. Check the numbers and the voice setup, then set the agent ACTIVE again.`;
      await pauseAgentAutomatically(tx, { agentId, reason, now });
      paused.add(agentId);
    }
    for (const candidate of candidates) {
      if (!paused.has(candidate.agent.id)) continue;
      verdicts.set(candidate.call.id, { action: "defer", until: new Date(now.getTime() + getConfig().CALL_PAUSED_RECHECK_SECONDS * 1000), reason: "agent-paused" });
    }
    return verdicts;
  },
};

const AUTO_PAUSE_FAILURES: ReadonlySet<string> = new Set(["Failed", "Invalid Phone Number"]);

/**
 * Daily credit cap of an agent: once the credits charged to it since the start of the day in its first timezone reach
 * the cap, its calls are deferred to the next local midnight. Credits are charged when a call ends, so calls already
 * in the air when the cap is reached may pass it by their own cost.
 */
export const dailyCreditCapCheck: DialCheck = {
  name: "daily-credit-cap",
  run: async ({ tx, now }, candidates) => {
    const verdicts = new Map<string, GateVerdict>();
    const capped = new Map<string, { organizationId: string; agentId: string; since: Date; until: Date; cap: number }>();
    for (const { agent } of candidates) {
      if (agent.dailyCreditCap === null || capped.has(agent.id)) continue;
      const today = DateTime.fromJSDate(now, { zone: agent.timezones[0] ?? "UTC" }).startOf("day");
      capped.set(agent.id, {
        organizationId: agent.organizationId,
        agentId: agent.id,
        since: today.toJSDate(),
        until: today.plus({ days: 1 }).toJSDate(),
        cap: agent.dailyCreditCap,
      });
    }
    if (capped.size === 0) return verdicts;
    const spent = await findCreditsSpentSince(tx, { agents: [...capped.values()] });
    for (const { call, agent } of candidates) {
      const day = capped.get(agent.id);
      if (!day || (spent.get(agent.id) ?? 0) < day.cap) continue;
      verdicts.set(call.id, { action: "defer", until: day.until, reason: "daily-credit-cap" });
    }
    return verdicts;
  },
};

/** How soon a call held back by a concurrency cap is looked at again (a call in the air usually ends within minutes). */
export const CONCURRENCY_RETRY_MS = 1000;

/**
 * Maximum concurrent calls of the organization (`organizations.max_concurrent_calls`) and of the agent
 * (`agents.max_concurrent_calls`): a call that would exceed either waits — nothing changes on it, the dispatcher looks
 * again a second later — and is never dropped. Calls admitted in this round count against the ones after them.
 */
export const concurrencyCapCheck: DialCheck = {
  name: "concurrency-cap",
  run: async ({ tx, now }, candidates) => {
    const verdicts = new Map<string, GateVerdict>();
    const cappedOrganizations = [
      ...new Set(candidates.filter((c) => c.organizationMaxConcurrentCalls !== null || c.agent.maxConcurrentCalls !== null).map((c) => c.call.organizationId)),
    ];
    if (cappedOrganizations.length === 0) return verdicts;
    const { byOrganization, byAgent } = await countCallsInFlight(tx, { organizationIds: cappedOrganizations });
    for (const candidate of candidates) {
      const organizationId = candidate.call.organizationId;
      const agentId = candidate.agent.id;
      const inOrganization = byOrganization.get(organizationId) ?? 0;
      const inAgent = byAgent.get(agentId) ?? 0;
      const organizationFull = candidate.organizationMaxConcurrentCalls !== null && inOrganization >= candidate.organizationMaxConcurrentCalls;
      const agentFull = candidate.agent.maxConcurrentCalls !== null && inAgent >= candidate.agent.maxConcurrentCalls;
      if (organizationFull || agentFull) {
        verdicts.set(candidate.call.id, { action: "wait", reason: "concurrency-cap", retryAt: new Date(now.getTime() + CONCURRENCY_RETRY_MS) });
        continue;
      }
      byOrganization.set(organizationId, inOrganization + 1);
      byAgent.set(agentId, inAgent + 1);
    }
    return verdicts;
  },
};

