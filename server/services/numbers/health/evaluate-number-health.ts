import { eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { numberHealthMonitors, type NumberHealthState } from "@/db/schema";
import { getConfig } from "@/server/config/env";
import { getLogger } from "@/server/observability/logger";
import { maskPhoneNumber } from "@/server/observability/redact";
import { requestWebhookDeliveries } from "@/server/services/webhooks/event-deliveries";
import { statsDayOf } from "./call-stratum";
import { changeNumberHealth, type HealthEvidence, type NumberHealthChange } from "./change-number-health";
import { readNumberForJudgement, saveHealthMonitor, type NumberUnderJudgement } from "./health-monitor-store";
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

type Transition = { from: NumberHealthState; to: NumberHealthState; reason: string; evidence: HealthEvidence | null };
type Judged = { changes: NumberHealthChange[]; deliveryIds: string[] };

/** Another writer changed the monitor between our read and our write: read again. */
class MonitorMoved extends Error {}

/** Optimistic readings before a contended call takes the monitor's row lock (and so goes next, whatever the others do). */
const OPTIMISTIC_ATTEMPTS = 3;

/**
 * Judges a number on one more of its ended outbound calls (after the call's final result committed,
 * finalize-call.ts): the call's expected answer rate from the organization's other numbers (same region and hours,
 * last 7 days), one step of the number's monitor, and the rule's decision (health-rule.ts). Most calls change
 * nothing but the monitor: one read (number, monitor, peers) and one conditional write. On a change: the monitor,
 * the number's health, reason, `healthChangedAt` and `restingUntil`, one `number.health_changed` event in the feed
 * and its webhook deliveries, in one transaction; the deliveries are requested after commit. The monitor is written
 * only at the version read, so concurrent calls of one number are taken one at a time (a loser reads again; after
 * three losses it waits for the monitor's row lock) and a change is written once. Returns the changes made (none for
 * most calls).
 *
 * Not judged: calls that reached nobody (carrier failures, invalid numbers: not the number's reputation), numbers the
 * organization does not hold, and calls that end while their number rests (they were placed before the rest). A
 * resting number whose rest is over comes back under watch here if the sweep has not brought it back yet.
 */
export async function evaluateNumberHealthAfterCall(db: DbOrTx, params: EvaluateNumberHealthParams): Promise<NumberHealthChange[]> {
  if (!isAnswerable(params.outcome)) return [];
  const { now } = params;
  const restHours = params.restHours ?? getConfig().NUMBER_REST_HOURS;
  const sinceDay = statsDayOf(new Date(now.getTime() - (NUMBER_HEALTH_RULE.windowDays - 1) * 86_400_000));
  const judgement = { ...params, restHours };
  const reading = { organizationId: params.organizationId, phoneNumber: params.phoneNumber, stratum: params.stratum, sinceDay };
  let judged: Judged | null = null;
  let numberId: string | null = null;
  for (let attempt = 0; attempt < OPTIMISTIC_ATTEMPTS && !judged; attempt += 1) {
    const read = await readNumberForJudgement(db, reading);
    if (!read) return [];
    numberId = read.numberId;
    judged = await judgeOnce(db, read, judgement);
  }
  if (!judged) {
    // Contended (many calls of the number ending at once): wait for the monitor's row lock, then read and write
    // under it — no other writer can move the version meanwhile.
    const lockedNumberId = numberId!;
    judged = await db.transaction(async (tx) => {
      await tx.insert(numberHealthMonitors).values({ numberId: lockedNumberId, organizationId: params.organizationId, updatedAt: now }).onConflictDoNothing();
      await tx.select({ numberId: numberHealthMonitors.numberId }).from(numberHealthMonitors).where(eq(numberHealthMonitors.numberId, lockedNumberId)).for("update");
      const read = await readNumberForJudgement(tx, reading);
      return read ? judgeOnce(tx, read, judgement) : { changes: [], deliveryIds: [] };
    });
    if (!judged) throw new Error("number health: the monitor moved under its own row lock");
  }
  await requestWebhookDeliveries(judged.deliveryIds);
  for (const change of judged.changes) {
    getLogger("numbers").info(
      { numberId: change.numberId, phoneNumber: maskPhoneNumber(change.phoneNumber), from: change.previousHealth, to: change.health, restingUntil: change.restingUntil?.toISOString() ?? null },
      "number health changed",
    );
  }
  return judged.changes;
}

/** One reading's step: the result, or null when the monitor moved meanwhile. */
async function judgeOnce(db: DbOrTx, read: NumberUnderJudgement, params: EvaluateNumberHealthParams & { restHours: number }): Promise<Judged | null> {
  const { now } = params;
  let health = read.health;
  let monitor = read.monitor;
  const transitions: Transition[] = [];
  if (health === "resting") {
    if (read.restingUntil && read.restingUntil > now) return { changes: [], deliveryIds: [] };
    transitions.push({ from: "resting", to: "watch", reason: backFromRestReason(), evidence: null });
    health = "watch";
    monitor = EMPTY_MONITOR;
  }
  const stepped = stepMonitor(monitor, { answered: params.outcome === "answered", expectedRate: expectedAnswerRate(read.peers) });
  const decision = decideHealth(health, stepped);
  monitor = stepped;
  if (decision.change) {
    const evidence = describeHealthEvidence({ evidence: decision.evidence, peerCalls: read.peers.all.calls });
    transitions.push({ from: health, to: decision.to, reason: decision.because === "recovered" ? `${evidence} since it was put under watch` : evidence, evidence: decision.evidence });
    monitor = decision.monitor;
  }
  const save = { numberId: read.numberId, organizationId: params.organizationId, monitor, version: read.version, now };
  if (transitions.length === 0) return (await saveHealthMonitor(db, save)) ? { changes: [], deliveryIds: [] } : null;
  try {
    return await db.transaction(async (tx) => {
      if (!(await saveHealthMonitor(tx, save))) throw new MonitorMoved();
      const judged: Judged = { changes: [], deliveryIds: [] };
      for (const transition of transitions) {
        const changed = await changeNumberHealth(tx, { organizationId: params.organizationId, numberId: read.numberId, phoneNumber: params.phoneNumber, now, restHours: params.restHours, ...transition });
        judged.changes.push(changed.change);
        judged.deliveryIds.push(...changed.deliveryIds);
      }
      return judged;
    });
  } catch (error) {
    if (error instanceof MonitorMoved) return null;
    throw error;
  }
}
