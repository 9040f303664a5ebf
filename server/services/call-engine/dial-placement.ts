import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { getLogger } from "@/server/observability/logger";
import { recordDialLag } from "@/server/observability/metrics";
import { maskPhoneNumber } from "@/server/observability/redact";
import type { VoiceEngine } from "@/server/voice/types";
import type { DialCandidate } from "./dial-gate";
import { prepareRequest, type PlaceRequestCache } from "./place-call-request";

/**
 * Placing a claimed call: the provider call, recording what the provider accepted (`dialedAt`, provider call ID), the
 * dial lag metric and log line, and what happens when it refuses (attempts, backoff, the `Failed` reason).
 */

/** Placements of one call before it ends as `Failed` (a provider that keeps refusing it). */
export const MAX_DIAL_ATTEMPTS = 4;

/** Wait before placing a claimed call again after attempt `attempts` was refused or interrupted: 10 s, 20 s, 40 s. */
export function dialRetryDelayMs(attempts: number): number {
  return 10_000 * 2 ** Math.max(0, attempts - 1);
}

export function refusedReason(message: string): string {
  return `The call failed: the voice provider refused it (${message.slice(0, 200)}).`;
}

export type PlaceResult = { ok: true; providerCallId: string; alreadyPlaced: boolean; placedAt: Date } | { ok: false; error: unknown; message: string };

export async function placeOne(db: DbOrTx, candidate: Pick<DialCandidate, "call" | "sequence" | "agent">, engine: VoiceEngine, placedAt: Date, cache: PlaceRequestCache): Promise<PlaceResult> {
  try {
    const request = await prepareRequest(db, cache, candidate);
    const placed = await engine.placeCall(request);
    await recordPlacements(db, [{ callId: candidate.call.id, providerCallId: placed.providerCallId, placedAt }]);
    if (!placed.alreadyPlaced) logDialed(candidate, placedAt);
    return { ok: true, providerCallId: placed.providerCallId, alreadyPlaced: placed.alreadyPlaced, placedAt };
  } catch (error) {
    return { ok: false, error, message: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The dial lag metric (`call_dial_lag_seconds`: against the call's schedule, its due time or its dial-rate slot,
 * whichever is later) and one log line per placed call.
 */
export function logDialed(candidate: Pick<DialCandidate, "call" | "sequence">, placedAt: Date, slotAt?: Date): void {
  const plannedAt = Math.max(candidate.call.scheduledAt.getTime(), slotAt?.getTime() ?? 0);
  const lagSeconds = Math.max(0, (placedAt.getTime() - plannedAt) / 1000);
  recordDialLag(lagSeconds);
  getLogger("call-engine").info(
    { callId: candidate.call.id, sequenceId: candidate.sequence.id, to: maskPhoneNumber(candidate.sequence.phoneNumber), step: candidate.call.stepNumber, lagMs: Math.round(lagSeconds * 1000) },
    "call dialed",
  );
}

/**
 * The provider accepted these calls: its call IDs and the moment each was placed (`dialedAt`), one statement. A call
 * whose first provider event came before this (the event binds the provider call ID) still gets its placement time.
 */
export async function recordPlacements(db: DbOrTx, placements: Array<{ callId: string; providerCallId: string; placedAt: Date }>): Promise<void> {
  if (placements.length === 0) return;
  const rows = placements.map((p) => sql`(${p.callId}, ${p.providerCallId}, ${p.placedAt.toISOString()}::timestamptz)`);
  await db.execute(sql`
    update calls as c set
      provider_call_id = coalesce(c.provider_call_id, v.provider_call_id),
      dialed_at = case when c.provider_call_id is null or c.provider_call_id = v.provider_call_id then v.placed_at else c.dialed_at end,
      updated_at = greatest(c.updated_at, v.placed_at)
    from (values ${sql.join(rows, sql`, `)}) as v(id, provider_call_id, placed_at)
    where c.id = v.id`);
}
