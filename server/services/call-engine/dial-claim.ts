import { asc, eq, sql, type SQL } from "drizzle-orm";
import type { Tx } from "@/db";
import { agents, calls, optOuts, organizations, sequences } from "@/db/schema";
import { countDialsByNumber } from "./caller-id-check";
import { callerIdOf, type DialCandidate, type GateVerdict } from "./dial-gate";

/**
 * The claim transaction's writes, shared by `dialDueCall` and the dispatcher: the candidates locked with their sequence
 * and agent, then the gate's verdicts applied (cancel, move, or `Scheduled` → `Calling` with slot and caller ID).
 */

/**
 * Loads due calls with their sequence and agent, call and sequence rows locked by the same statement (`skipLocked`:
 * rows another dispatcher holds are passed over, so dispatchers share the work instead of queueing).
 */
export async function lockCandidates(tx: Tx, where: SQL | undefined, options: { limit: number; skipLocked: boolean }): Promise<DialCandidate[]> {
  const query = tx
    .select({
      call: calls,
      sequence: sequences,
      agent: agents,
      optedOut: sql<boolean>`exists (select 1 from ${optOuts} where ${optOuts.organizationId} = ${sequences.organizationId} and ${optOuts.phoneNumber} = ${sequences.phoneNumber})`,
      organizationDialRate: sql<number | null>`(select ${organizations.dialRatePerSecond} from ${organizations} where ${organizations.id} = ${calls.organizationId})`,
      organizationMaxConcurrentCalls: sql<number | null>`(select ${organizations.maxConcurrentCalls} from ${organizations} where ${organizations.id} = ${calls.organizationId})`,
    })
    .from(calls)
    .innerJoin(sequences, eq(sequences.id, calls.sequenceId))
    .innerJoin(agents, eq(agents.id, calls.agentId))
    .where(where)
    .orderBy(asc(calls.scheduledAt))
    .limit(options.limit);
  return options.skipLocked ? query.for("update", { of: [calls, sequences], skipLocked: true }) : query.for("update", { of: [calls, sequences] });
}

export type Claimed = { candidate: DialCandidate; slotAt: Date };

export type AppliedGate = {
  claimed: Claimed[];
  cancelled: Array<{ callId: string; sequenceId: string; reason: string; chained: boolean; endedSequence: boolean }>;
  deferred: Array<{ callId: string; until: Date; reason: string }>;
  waiting: Array<{ callId: string; retryAt: Date | null }>;
};

/** Writes the gate's decisions in the claim transaction: cancels, moves, and `Scheduled` → `Calling` for the rest. */
export async function applyGate(tx: Tx, candidates: DialCandidate[], verdicts: Map<string, GateVerdict>, slots: Map<string, Date>, now: Date): Promise<AppliedGate> {
  const applied: AppliedGate = { claimed: [], cancelled: [], deferred: [], waiting: [] };
  for (const candidate of candidates) {
    const { call, sequence, agent } = candidate;
    const verdict = verdicts.get(call.id);
    if (verdict?.action === "cancel") {
      await tx
        .update(calls)
        .set({ resultType: "Cancelled", ...(verdict.summary ? { summary: verdict.summary } : {}), updatedAt: now })
        .where(eq(calls.id, call.id));
      if (verdict.endSequence && sequence.lifecycleStatus === "in progress") {
        await tx.update(sequences).set({ lifecycleStatus: "cancelled", endedAt: now, updatedAt: now }).where(eq(sequences.id, sequence.id));
      }
      applied.cancelled.push({
        callId: call.id,
        sequenceId: sequence.id,
        reason: verdict.reason,
        chained: sequence.groupKey !== null,
        endedSequence: Boolean(verdict.endSequence),
      });
    } else if (verdict?.action === "defer") {
      if (verdict.until.getTime() !== call.scheduledAt.getTime()) {
        await tx.update(calls).set({ scheduledAt: verdict.until, rescheduledAt: now, updatedAt: now }).where(eq(calls.id, call.id));
      }
      applied.deferred.push({ callId: call.id, until: verdict.until, reason: verdict.reason });
    } else if (verdict?.action === "wait") {
      applied.waiting.push({ callId: call.id, retryAt: verdict.retryAt ?? null });
    } else {
      const slotAt = slots.get(call.id) ?? now;
      const dialing = {
        resultType: "Calling" as const,
        dialedAt: now,
        dialSlotAt: slotAt,
        dialAttempts: 1,
        fromPhoneNumber: callerIdOf(candidate),
        promptVersionId: call.promptVersionId ?? agent.currentPromptVersionId,
        updatedAt: now,
      };
      applied.claimed.push({ candidate: { ...candidate, call: { ...call, ...dialing } }, slotAt });
    }
  }
  await markCalling(tx, applied.claimed, now);
  await countDialsByNumber(tx, applied.claimed.map(({ candidate: { call } }) => ({ organizationId: call.organizationId, phoneNumber: call.fromPhoneNumber })), now);
  return applied;
}

/** `Scheduled` → `Calling` for the claimed calls, with their slot, caller ID and prompt version: one statement. */
async function markCalling(tx: Tx, claimed: Claimed[], now: Date): Promise<void> {
  if (claimed.length === 0) return;
  const rows = claimed.map(
    ({ candidate: { call }, slotAt }) => sql`(${call.id}, ${slotAt.toISOString()}::timestamptz, ${call.fromPhoneNumber}, ${call.promptVersionId}::text)`,
  );
  await tx.execute(sql`
    update calls as c set
      result_type = 'Calling', dialed_at = ${now.toISOString()}::timestamptz, dial_slot_at = v.slot_at, dial_attempts = 1,
      from_phone_number = v.from_phone_number, prompt_version_id = v.prompt_version_id, updated_at = ${now.toISOString()}::timestamptz
    from (values ${sql.join(rows, sql`, `)}) as v(id, slot_at, from_phone_number, prompt_version_id)
    where c.id = v.id`);
}
