import type { DbOrTx } from "@/db";
import { findLiveOrganizationNumber, findPeerAnswerCounts } from "@/db/queries/number-health";
import { getConfig } from "@/server/config/env";
import { getLogger } from "@/server/observability/logger";
import { maskPhoneNumber } from "@/server/observability/redact";
import { requestWebhookDeliveries } from "@/server/services/webhooks/event-deliveries";
import { statsDayOf } from "./call-stratum";
import { changeNumberHealth, type NumberHealthChange } from "./change-number-health";
import { lockHealthMonitor, saveHealthMonitor } from "./health-monitor-store";
import { EMPTY_MONITOR, NUMBER_HEALTH_RULE, decideHealth, describeHealthEvidence, expectedAnswerRate, stepMonitor } from "./health-rule";
import { isAnswerable, type NumberCallOutcome } from "./record-number-stats";

export type EvaluateNumberHealthParams = {
  organizationId: string;
  /** Our number the call was placed from (E.164). */
  phoneNumber: string;
  /** callStratum(…) of the call. */
  stratum: string;
  outcome: NumberCallOutcome;
  now: Date;
  /** Default: NUMBER_REST_HOURS. */
  restHours?: number;
};

/** The reason a number carries when its rest is over. */
export function backFromRestReason(): string {
  return `back from its rest, in the rotation under watch: healthy again once ${NUMBER_HEALTH_RULE.recovery.minCalls} calls show it answers like your other numbers`;
}

/**
 * Judges a number on one more of its ended outbound calls (after the call's final result committed,
 * finalize-call.ts): the call's expected answer rate from the organization's other numbers (same region and hours,
 * last 7 days), one step of the number's monitor, and the rule's decision (health-rule.ts). On a change: the number's
 * health, reason, `healthChangedAt` and `restingUntil`, one `number.health_changed` event in the feed and the
 * webhook deliveries of it, in one transaction under the number's monitor lock; the deliveries are requested after
 * commit. Returns the changes made (none for most calls).
 *
 * Not judged: calls that reached nobody (carrier failures, invalid numbers: not the number's reputation), numbers the
 * organization does not hold, and calls that end while their number rests (they were placed before the rest). A
 * resting number whose rest is over comes back under watch here if the wake sweep has not brought it back yet.
 */
export async function evaluateNumberHealthAfterCall(db: DbOrTx, params: EvaluateNumberHealthParams): Promise<NumberHealthChange[]> {
  if (!isAnswerable(params.outcome)) return [];
  const lookup = { organizationId: params.organizationId, phoneNumber: params.phoneNumber };
  const found = await findLiveOrganizationNumber(db, lookup);
  if (!found) return [];
  const { now } = params;
  const restHours = params.restHours ?? getConfig().NUMBER_REST_HOURS;
  const result = await db.transaction(async (tx) => {
    let monitor = await lockHealthMonitor(tx, { numberId: found.id, organizationId: params.organizationId, now });
    // Read under the lock: the health another call's evaluation may just have changed.
    const number = await findLiveOrganizationNumber(tx, lookup);
    if (!number || number.id !== found.id) return { changes: [], deliveryIds: [] };
    const changes: NumberHealthChange[] = [];
    const subject = { organizationId: params.organizationId, numberId: number.id, phoneNumber: params.phoneNumber, now, restHours };
    const deliveryIds: string[] = [];
    let health = number.health;
    if (health === "resting") {
      if (number.restingUntil && number.restingUntil > now) return { changes, deliveryIds };
      const woken = await changeNumberHealth(tx, { ...subject, from: "resting", to: "watch", reason: backFromRestReason(), evidence: null });
      changes.push(woken.change);
      deliveryIds.push(...woken.deliveryIds);
      health = "watch";
      monitor = EMPTY_MONITOR;
    }
    const peers = await findPeerAnswerCounts(tx, {
      organizationId: params.organizationId,
      phoneNumber: params.phoneNumber,
      stratum: params.stratum,
      sinceDay: statsDayOf(new Date(now.getTime() - (NUMBER_HEALTH_RULE.windowDays - 1) * 86_400_000)),
    });
    const stepped = stepMonitor(monitor, { answered: params.outcome === "answered", expectedRate: expectedAnswerRate(peers) });
    const decision = decideHealth(health, stepped);
    monitor = stepped;
    if (decision.change) {
      const evidence = describeHealthEvidence({ evidence: decision.evidence, peerCalls: peers.all.calls });
      const reason = decision.because === "recovered" ? `${evidence} since it was put under watch` : evidence;
      const changed = await changeNumberHealth(tx, { ...subject, from: health, to: decision.to, reason, evidence: decision.evidence });
      changes.push(changed.change);
      deliveryIds.push(...changed.deliveryIds);
      monitor = decision.monitor;
    }
    await saveHealthMonitor(tx, { numberId: number.id, monitor, now });
    return { changes, deliveryIds };
  });
  await requestWebhookDeliveries(result.deliveryIds);
  for (const change of result.changes) {
    getLogger("numbers").info(
      { numberId: change.numberId, phoneNumber: maskPhoneNumber(change.phoneNumber), from: change.previousHealth, to: change.health, restingUntil: change.restingUntil?.toISOString() ?? null },
      "number health changed",
    );
  }
  return result.changes;
}
