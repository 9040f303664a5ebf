import { and, asc, eq, gt, inArray, isNull, lte, notInArray, sql, type SQL } from "drizzle-orm";
import type { DbOrTx, Tx } from "@/db";
import { agents, calls, sequences } from "@/db/schema";
import { dialChecks, runDialGate, type DialCandidate, type DialCheck } from "./dial-gate";
import { BURST_CREDIT_MS, defaultOrganizationDialRate } from "./dial-rate";
import { applyGate, lockCandidates, type AppliedGate } from "./dial-claim";
import { MAX_DIAL_ATTEMPTS, dialRetryDelayMs } from "./dial-placement";

/**
 * One claim of the dispatcher's step: recovery of claimed calls the engine never accepted, the due calls that can get
 * a slot within the horizon (per organization, its capacity) through the gate, and when to claim next.
 */

/** Due rows one claim's capacity query looks at, at most (a backlog beyond it is reached as the front drains). */
const CLAIM_SCAN_LIMIT = 20_000;

/**
 * The due calls one claim may examine: per organization, as many as can get a dial slot within the horizon under its
 * own limit (from its cursor in `dial_rate_cursors`, read without a lock — the gate plans the real slots — and its
 * earliest due call) plus a margin (10 %, at least one, so a backlog always has a call that says when the next slot
 * comes), earliest first.
 * Every organization with due calls gets its own capacity, so one organization's backlog never hides another's call.
 * `overflow`: organizations with more due calls than that.
 */
export async function claimableCallIds(tx: Tx, params: { now: Date; horizonMs: number; limit: number; organizationIds?: string[] }) {
  const { now } = params;
  const scope = params.organizationIds ? sql`and organization_id in (${sql.join(params.organizationIds.map((id) => sql`${id}`), sql`, `)})` : sql``;
  const rows = await tx.execute<{ id: string; organization_id: string; overflow: boolean; scanned: number }>(sql`
    with due as (
      select id, organization_id, scheduled_at from calls
      where result_type = 'Scheduled' and scheduled_at <= ${now.toISOString()}::timestamptz ${scope}
      order by scheduled_at limit ${CLAIM_SCAN_LIMIT}
    ), ranked as (
      select id, organization_id, scheduled_at,
        row_number() over (partition by organization_id order by scheduled_at, id) as rank,
        count(*) over (partition by organization_id) as due_count,
        count(*) over () as scanned
      from due
    ), capacity as (
      select o.id as organization_id,
        greatest(0, floor(extract(epoch from (${new Date(now.getTime() + params.horizonMs).toISOString()}::timestamptz
          - greatest(coalesce(cursor.next_slot_at, 'epoch'::timestamptz), first_due.at, ${new Date(now.getTime() - BURST_CREDIT_MS).toISOString()}::timestamptz)))
          * coalesce(o.dial_rate_per_second, ${defaultOrganizationDialRate()})) + 1) as slots
      from (select organization_id, min(scheduled_at) as at from due group by organization_id) first_due
      join organizations o on o.id = first_due.organization_id
      left join dial_rate_cursors cursor on cursor.key = 'org:' || o.id
    ), bounded as (
      select organization_id, slots + greatest(1, ceil(slots * 0.1)) as examine from capacity
    )
    select r.id, r.organization_id, r.due_count > b.examine as overflow, r.scanned::int as scanned
    from ranked r join bounded b using (organization_id)
    where r.rank <= b.examine
    order by r.scheduled_at, r.id
    limit ${params.limit}`);
  return {
    ids: rows.map((row) => row.id),
    overflow: new Set(rows.filter((row) => row.overflow).map((row) => row.organization_id)),
    scanLimited: (rows[0]?.scanned ?? 0) >= CLAIM_SCAN_LIMIT,
  };
}

export type ClaimResult = {
  /** Claimed earlier and never accepted by the engine, due for another placement (attempt counted). */
  retry: Array<Pick<DialCandidate, "call" | "sequence" | "agent">>;
  /** Claimed and refused `MAX_DIAL_ATTEMPTS` times: to be failed. */
  failed: string[];
  gate: AppliedGate;
  /** Due calls the claim examined (at most its `limit`). */
  examined: number;
  /** The earliest moment something may be dialable again as this claim sees it (Infinity: nothing known). */
  nextAt: number;
};

/**
 * One claim of the dispatcher's step (see `dispatchDueCalls`): recovery, then the due calls through the gate.
 * `limit` 0 (backpressure held the claim back): recovery only, and the next moment is the next due call, but not
 * sooner than half a horizon away (the claims' own pace: the backlog is measured again then).
 */
export async function claimOnce(
  db: DbOrTx,
  params: { now: Date; limit: number; horizonMs: number; scope: SQL | undefined; organizationIds?: string[]; checks?: DialCheck[]; held: string[]; engine: string },
): Promise<ClaimResult> {
  const { now, scope } = params;
  let nextAt = Infinity;
  const later = (at: Date | number) => (nextAt = Math.min(nextAt, typeof at === "number" ? at : at.getTime()));

  // 1. Recovery: claimed but never accepted by the engine (not the calls this step still holds).
  const recovery = await db.transaction(async (tx) => {
    const stale = await tx
      .select({ call: calls, sequence: sequences, agent: agents })
      .from(calls)
      .innerJoin(sequences, eq(sequences.id, calls.sequenceId))
      .innerJoin(agents, eq(agents.id, calls.agentId))
      .where(and(eq(calls.resultType, "Calling"), isNull(calls.providerCallId), scope, params.held.length > 0 ? notInArray(calls.id, params.held) : undefined))
      .orderBy(asc(calls.updatedAt))
      .limit(100)
      .for("update", { of: [calls], skipLocked: true });
    const retry: typeof stale = [];
    const failed: string[] = [];
    for (const row of stale) {
      const dueAt = row.call.updatedAt.getTime() + dialRetryDelayMs(row.call.dialAttempts);
      if (dueAt > now.getTime()) {
        later(dueAt);
        continue;
      }
      if (row.call.dialAttempts >= MAX_DIAL_ATTEMPTS) {
        failed.push(row.call.id);
        continue;
      }
      await tx
        .update(calls)
        .set({ dialAttempts: row.call.dialAttempts + 1, updatedAt: now })
        .where(eq(calls.id, row.call.id));
      retry.push({ ...row, call: { ...row.call, dialAttempts: row.call.dialAttempts + 1, updatedAt: now } });
    }
    return { retry, failed };
  });

  // 2. The due calls that can get a slot, through the gate.
  const heldBack = params.limit === 0;
  const claimed = heldBack ? null : await db.transaction(async (tx) => {
    const claimable = await claimableCallIds(tx, { now, horizonMs: params.horizonMs, limit: params.limit, organizationIds: params.organizationIds });
    const candidates =
      claimable.ids.length === 0
        ? []
        : await lockCandidates(tx, and(inArray(calls.id, claimable.ids), eq(calls.resultType, "Scheduled"), lte(calls.scheduledAt, now)), {
            limit: claimable.ids.length,
            skipLocked: true,
          });
    const { verdicts, slots } = await runDialGate({ tx, now, paced: true, engine: params.engine }, candidates, params.checks ?? dialChecks);
    const gate = await applyGate(tx, candidates, verdicts, slots, now);
    return { gate, claimable, candidates };
  });
  if (!claimed) {
    const [due] = await db
      .select({ scheduledAt: calls.scheduledAt })
      .from(calls)
      .where(and(eq(calls.resultType, "Scheduled"), scope))
      .orderBy(asc(calls.scheduledAt))
      .limit(1);
    if (due) later(Math.max(due.scheduledAt.getTime(), now.getTime() + params.horizonMs / 2));
    return { retry: recovery.retry, failed: recovery.failed, gate: { claimed: [], cancelled: [], deferred: [], waiting: [] }, examined: 0, nextAt };
  }
  const { gate, claimable, candidates } = claimed;
  for (const item of gate.deferred) later(item.until);
  // A waiting call is looked at again when its check says, never sooner than in 100 ms (no busy loop on a check that
  // names a past moment).
  for (const item of gate.waiting) later(Math.max(item.retryAt?.getTime() ?? now.getTime() + 1000, now.getTime() + 100));
  // Due calls left out of this claim: an organization's beyond its capacity wait behind its own calls that were told to
  // wait (their retry time is counted above); otherwise (its examined calls were dialed, moved or cancelled) the next
  // claim takes them.
  const waitingOrganizations = new Set(candidates.filter((candidate) => gate.waiting.some((item) => item.callId === candidate.call.id)).map((c) => c.call.organizationId));
  if ([...claimable.overflow].some((organizationId) => !waitingOrganizations.has(organizationId))) later(now);
  if (claimable.ids.length >= params.limit || claimable.scanLimited) later(now);

  // 3. The next call not due yet (every due one was examined, or is covered above).
  const [next] = await db
    .select({ scheduledAt: calls.scheduledAt })
    .from(calls)
    .where(and(eq(calls.resultType, "Scheduled"), gt(calls.scheduledAt, now), scope))
    .orderBy(asc(calls.scheduledAt))
    .limit(1);
  if (next) later(next.scheduledAt);
  return { retry: recovery.retry, failed: recovery.failed, gate, examined: claimable.ids.length, nextAt };
}
