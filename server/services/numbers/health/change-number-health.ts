import { eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { numbers, type NumberHealthState } from "@/db/schema";
import { newUlid } from "@/server/ids";
import { recordNumberHealthEvent } from "@/server/services/events/record-number-health-event";
import { createNumberEventDeliveries } from "@/server/services/webhooks/event-deliveries";
import type { AnswerCounts } from "./health-rule";

export type HealthEvidence = AnswerCounts & { expected: number };

export type NumberHealthChange = {
  /** `evt_…`: the event's ID in the feed and the `webhook-id` of its deliveries. */
  eventId: string;
  organizationId: string;
  numberId: string;
  phoneNumber: string;
  previousHealth: NumberHealthState;
  health: NumberHealthState;
  reason: string;
  changedAt: Date;
  restingUntil: Date | null;
  evidence: HealthEvidence | null;
};

/** The `data` of a `number.health_changed` event: the feed's and the webhook's body (docs/numbers.md "Number health"). */
export function numberHealthEventData(change: NumberHealthChange) {
  const rate = (value: number) => Math.round(value * 1000) / 1000;
  return {
    type: "number.health_changed" as const,
    eventId: change.eventId,
    numberId: change.numberId,
    phoneNumber: change.phoneNumber,
    previousHealth: change.previousHealth,
    health: change.health,
    reason: change.reason,
    changedAt: change.changedAt.toISOString(),
    restingUntil: change.restingUntil?.toISOString() ?? null,
    evidence: change.evidence
      ? {
          calls: change.evidence.calls,
          answered: change.evidence.answered,
          answerRate: rate(change.evidence.calls > 0 ? change.evidence.answered / change.evidence.calls : 0),
          expectedAnswerRate: rate(change.evidence.calls > 0 ? change.evidence.expected / change.evidence.calls : 0),
        }
      : null,
  };
}

export type ChangeNumberHealthParams = {
  organizationId: string;
  numberId: string;
  phoneNumber: string;
  from: NumberHealthState;
  to: NumberHealthState;
  reason: string;
  evidence: HealthEvidence | null;
  now: Date;
  /** For `resting`: how long the number stays out of the rotation. */
  restHours: number;
};

/**
 * Writes a change of a number's health — `health`, `healthReason`, `healthChangedAt`, `restingUntil` (now + the rest
 * for `resting`, cleared otherwise) — with its `number.health_changed` event in the feed and one webhook delivery per
 * endpoint that asked for it, in the caller's transaction (which has written the number's monitor at the version it
 * decided on, so one change is written once). The caller requests the deliveries' attempts after commit.
 */
export async function changeNumberHealth(tx: DbOrTx, params: ChangeNumberHealthParams): Promise<{ change: NumberHealthChange; deliveryIds: string[] }> {
  const restingUntil = params.to === "resting" ? new Date(params.now.getTime() + params.restHours * 3_600_000) : null;
  await tx
    .update(numbers)
    .set({ health: params.to, healthReason: params.reason, healthChangedAt: params.now, restingUntil, updatedAt: params.now })
    .where(eq(numbers.id, params.numberId));
  const change: NumberHealthChange = {
    eventId: `evt_${newUlid().toLowerCase()}`,
    organizationId: params.organizationId,
    numberId: params.numberId,
    phoneNumber: params.phoneNumber,
    previousHealth: params.from,
    health: params.to,
    reason: params.reason,
    changedAt: params.now,
    restingUntil,
    evidence: params.evidence,
  };
  const body = JSON.stringify(numberHealthEventData(change));
  await recordNumberHealthEvent(tx, { organizationId: params.organizationId, eventId: change.eventId, body, now: params.now });
  const deliveryIds = await createNumberEventDeliveries(tx, { organizationId: params.organizationId, eventId: change.eventId, body, now: params.now });
  return { change, deliveryIds };
}
