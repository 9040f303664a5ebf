import { and, asc, eq, inArray, isNull, lte, notInArray, sql, type SQL } from "drizzle-orm";
import type { DbOrTx, Tx } from "@/db";
import { findCallWithSequenceAndAgent } from "@/db/queries/calls";
import { agents, calls, optOuts, organizations, sequences } from "@/db/schema";
import { getLogger } from "@/server/observability/logger";
import { recordDialLag } from "@/server/observability/metrics";
import { maskPhoneNumber } from "@/server/observability/redact";
import type { AgentVoiceSettings } from "@/server/voice/agent-voice-settings";
import type { PlaceCallRequest, VoiceEngine } from "@/server/voice/types";
import { findExtractionDefinitions, findPromptText, pickFromPhoneNumber } from "./call-context";
import { dialChecks, runDialGate, type DialCandidate, type DialCheck, type GateVerdict } from "./dial-gate";
import { failCall } from "./finalize-call";

export { pausedRecheckSeconds } from "./dial-gate";

/** Placements of one call before it ends as `Failed` (a provider that keeps refusing it). */
export const MAX_DIAL_ATTEMPTS = 4;

/** Wait before placing a claimed call again after attempt `attempts` was refused or interrupted: 10 s, 20 s, 40 s. */
export function dialRetryDelayMs(attempts: number): number {
  return 10_000 * 2 ** Math.max(0, attempts - 1);
}

export type DialDueCallParams = {
  callId: string;
  now: Date;
  voiceEngine: VoiceEngine;
  /**
   * When the voice engine refuses the call: `throw` (default) or `fail-call` (the call ends as `Failed` — a provider
   * error — and the sequence moves on like after any failed call).
   */
  onPlaceError?: "throw" | "fail-call";
};

export type DialOutcome =
  | { status: "dialed"; callId: string; providerCallId: string; alreadyPlaced: boolean }
  /** Already past dialing (Calling, Processing Analysis or final): nothing was done. */
  | { status: "in-flight"; callId: string; resultType: string }
  /** Not dialed now; the call is (still) Scheduled and due at `until`. */
  | { status: "deferred"; callId: string; until: string; reason: string }
  /** The voice engine refused the call for good: it ended as `Failed` (announce it like any final result). */
  | { status: "failed"; callId: string; message: string }
  /** Not dialed and never will be: the call became Cancelled (or was). */
  | { status: "skipped"; callId: string; reason: string; sequenceId?: string; chained?: boolean };

/**
 * Loads due calls with their sequence and agent, call and sequence rows locked by the same statement (`skipLocked`:
 * rows another dispatcher holds are passed over, so dispatchers share the work instead of queueing).
 */
async function lockCandidates(tx: Tx, where: SQL | undefined, options: { limit: number; skipLocked: boolean }): Promise<DialCandidate[]> {
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

type Claimed = { candidate: DialCandidate; slotAt: Date };

type AppliedGate = {
  claimed: Claimed[];
  cancelled: Array<{ callId: string; sequenceId: string; reason: string; chained: boolean; endedSequence: boolean }>;
  deferred: Array<{ callId: string; until: Date; reason: string }>;
  waiting: Array<{ callId: string; retryAt: Date | null }>;
};

/** Writes the gate's decisions in the claim transaction: cancels, moves, and `Scheduled` → `Calling` for the rest. */
async function applyGate(tx: Tx, candidates: DialCandidate[], verdicts: Map<string, GateVerdict>, slots: Map<string, Date>, now: Date): Promise<AppliedGate> {
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
        fromPhoneNumber: pickFromPhoneNumber(agent.phoneNumbers, sequence.phoneNumber),
        promptVersionId: call.promptVersionId ?? agent.currentPromptVersionId,
        updatedAt: now,
      };
      await tx.update(calls).set(dialing).where(eq(calls.id, call.id));
      applied.claimed.push({ candidate: { ...candidate, call: { ...call, ...dialing } }, slotAt });
    }
  }
  return applied;
}

/**
 * Dials one due call, at most once, without pacing (the demo seeder; tests). The same gate as the dispatcher, in one
 * transaction with the call and its sequence locked — sequence still in progress, not opted out, agent ACTIVE, inside
 * the step's window — then `Scheduled` → `Calling`; the voice engine is called after commit with the callId as its
 * idempotency key. A `Calling` call the engine has not accepted yet is placed again with the same key.
 */
export async function dialDueCall(db: DbOrTx, params: DialDueCallParams): Promise<DialOutcome> {
  const { callId, now } = params;
  type Claim = { kind: "place"; candidate: DialCandidate } | { kind: "done"; outcome: DialOutcome };
  const claim = await db.transaction(async (tx): Promise<Claim> => {
    const [candidate] = await lockCandidates(tx, eq(calls.id, callId), { limit: 1, skipLocked: false });
    if (!candidate) return { kind: "done", outcome: { status: "skipped", callId, reason: "not-found" } };
    const { call } = candidate;
    if (call.resultType === "Calling" && !call.providerCallId) return { kind: "place", candidate };
    if (call.resultType !== "Scheduled" && call.resultType !== "Rescheduled") {
      return { kind: "done", outcome: { status: "in-flight", callId, resultType: call.resultType } };
    }
    const { verdicts, slots } = await runDialGate({ tx, now, paced: false }, [candidate]);
    const applied = await applyGate(tx, [candidate], verdicts, slots, now);
    const [cancelled] = applied.cancelled;
    if (cancelled) return { kind: "done", outcome: { status: "skipped", callId, reason: cancelled.reason, sequenceId: cancelled.sequenceId, chained: cancelled.chained } };
    const [deferred] = applied.deferred;
    if (deferred) return { kind: "done", outcome: { status: "deferred", callId, until: deferred.until.toISOString(), reason: deferred.reason } };
    if (applied.waiting.length > 0) return { kind: "done", outcome: { status: "deferred", callId, until: now.toISOString(), reason: "waiting" } };
    return { kind: "place", candidate: applied.claimed[0]!.candidate };
  });
  if (claim.kind === "done") return claim.outcome;
  const placed = await placeOne(db, claim.candidate, params.voiceEngine, now, new PlaceRequestCache());
  if (placed.ok) return { status: "dialed", callId, providerCallId: placed.providerCallId, alreadyPlaced: placed.alreadyPlaced };
  if (params.onPlaceError !== "fail-call") throw placed.error;
  await failCall(db, { callId, now, reason: refusedReason(placed.message) });
  return { status: "failed", callId, message: placed.message };
}

function refusedReason(message: string): string {
  return `The call failed: the voice provider refused it (${message.slice(0, 200)}).`;
}

/** Per dispatch round: extraction definitions and prompt texts are read once per agent / prompt version. */
class PlaceRequestCache {
  private readonly definitions = new Map<string, ReturnType<typeof findExtractionDefinitions>>();
  private readonly prompts = new Map<string | null, ReturnType<typeof findPromptText>>();

  request(db: DbOrTx, candidate: Pick<DialCandidate, "call" | "sequence" | "agent">): Promise<PlaceCallRequest> {
    let definitions = this.definitions.get(candidate.agent.id);
    if (!definitions) this.definitions.set(candidate.agent.id, (definitions = findExtractionDefinitions(db, candidate.agent.id)));
    let prompt = this.prompts.get(candidate.call.promptVersionId);
    if (!prompt) this.prompts.set(candidate.call.promptVersionId, (prompt = findPromptText(db, candidate.call.promptVersionId)));
    return Promise.all([definitions, prompt]).then(([defs, text]) => toPlaceCallRequest(candidate, defs, text));
  }
}

type PlaceResult = { ok: true; providerCallId: string; alreadyPlaced: boolean; placedAt: Date } | { ok: false; error: unknown; message: string };

async function placeOne(db: DbOrTx, candidate: Pick<DialCandidate, "call" | "sequence" | "agent">, engine: VoiceEngine, placedAt: Date, cache: PlaceRequestCache): Promise<PlaceResult> {
  try {
    const request = await cache.request(db, candidate);
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
function logDialed(candidate: Pick<DialCandidate, "call" | "sequence">, placedAt: Date, slotAt?: Date): void {
  const plannedAt = Math.max(candidate.call.scheduledAt.getTime(), slotAt?.getTime() ?? 0);
  const lagSeconds = Math.max(0, (placedAt.getTime() - plannedAt) / 1000);
  recordDialLag(lagSeconds);
  getLogger("call-engine").info(
    { callId: candidate.call.id, sequenceId: candidate.sequence.id, to: maskPhoneNumber(candidate.sequence.phoneNumber), step: candidate.call.stepNumber, lagMs: Math.round(lagSeconds * 1000) },
    "call dialed",
  );
}

/** The provider accepted these calls: its call IDs and the moment each was placed (`dialedAt`), one statement. */
async function recordPlacements(db: DbOrTx, placements: Array<{ callId: string; providerCallId: string; placedAt: Date }>): Promise<void> {
  if (placements.length === 0) return;
  const rows = placements.map((p) => sql`(${p.callId}, ${p.providerCallId}, ${p.placedAt.toISOString()}::timestamptz)`);
  await db.execute(sql`
    update calls as c set
      provider_call_id = coalesce(c.provider_call_id, v.provider_call_id),
      dialed_at = case when c.provider_call_id is null then v.placed_at else c.dialed_at end,
      updated_at = greatest(c.updated_at, v.placed_at)
    from (values ${sql.join(rows, sql`, `)}) as v(id, provider_call_id, placed_at)
    where c.id = v.id`);
}

/** Everything the voice engine needs to run the conversation (a real provider receives the same). */
export async function buildPlaceCallRequest(db: DbOrTx, callId: string): Promise<PlaceCallRequest> {
  const row = await findCallWithSequenceAndAgent(db, { callId, organizationId: null });
  if (!row) throw new Error(`call ${callId} vanished while being dialed`);
  return new PlaceRequestCache().request(db, row);
}

function toPlaceCallRequest(
  row: Pick<DialCandidate, "call" | "sequence" | "agent">,
  definitions: Awaited<ReturnType<typeof findExtractionDefinitions>>,
  prompt: Awaited<ReturnType<typeof findPromptText>>,
): PlaceCallRequest {
  return {
    callId: row.call.id,
    organizationId: row.call.organizationId,
    from: row.call.fromPhoneNumber,
    to: row.sequence.phoneNumber,
    toExt: row.sequence.phoneNumberExt,
    agent: {
      agentId: row.agent.id,
      name: row.agent.name,
      prompt,
      hasBookingTool: row.agent.bookingConfig !== null,
      goals: definitions
        .filter((definition) => !definition.systemDefault)
        .map(({ slug, displayName, description, type, dropdownOptions }) => ({ slug, displayName, description, type, dropdownOptions })),
      voice: {
        voicemailMessage: row.agent.voicemailMessage,
        ringTimeoutSeconds: row.agent.ringTimeoutSeconds,
        maxCallSeconds: row.agent.maxCallSeconds,
        voice: row.agent.voice as AgentVoiceSettings["voice"],
      },
    },
    contact: {
      name: row.sequence.name,
      timezone: row.sequence.timezone,
      email: row.sequence.toEmailAddress,
      variables: row.sequence.customInputVariables,
    },
  };
}

export type DispatchParams = {
  /** The dispatcher's clock (tests inject a simulated one); `dialedAt` is read from it when each call is placed. */
  clock: () => Date;
  voiceEngine: VoiceEngine;
  /** Due calls examined per round (default 500). */
  limit?: number;
  /** Only these organizations (tests sharing a database); undefined: all. */
  organizationIds?: string[];
  /** Calls placed at once (default 16). */
  placeConcurrency?: number;
  /** Waits until a call's slot; by default sleeps (in real time) for the slot's distance from `clock()`. */
  waitUntil?: (at: Date) => Promise<void>;
  checks?: DialCheck[];
};

export type DispatchResult = {
  /** Calls the voice engine accepted in this round. */
  dialed: number;
  /** Calls that ended `Failed` because the provider kept refusing them: announce them like any final result. */
  failedCallIds: string[];
  /** Sequences of a contact chain that ended without a call (opted out at dial time): hand the chain over. */
  handOverSequenceIds: string[];
  cancelled: number;
  deferred: number;
  /** Due calls left for a later round (rate slots beyond the horizon, a check that said wait, a full batch). */
  waiting: number;
  /** The earliest moment something may be dialable again (a due call, a retry, a waiting call), null: nothing known. */
  nextAt: string | null;
};

function sleepUntil(clock: () => Date): (at: Date) => Promise<void> {
  return (at) => {
    const ms = at.getTime() - clock().getTime();
    return ms > 0 ? new Promise((resolve) => setTimeout(resolve, Math.min(ms, 10_000))) : Promise.resolve();
  };
}

async function pool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/**
 * One round of the dispatcher (DESIGN §5): in one transaction, claims up to `limit` due calls (`calls_due_idx`,
 * `FOR UPDATE SKIP LOCKED`, so concurrent dispatchers never take the same call) and runs the dial gate over them —
 * state re-checks, opt-out, paused agent, window, and the dial-rate slots of the organization and caller ID — then
 * moves the dialable ones `Scheduled` → `Calling` with their planned `dialSlotAt`. After commit each is placed at its
 * slot (bounded concurrency), and `dialedAt` / the provider call ID are recorded in one statement.
 *
 * Recovery comes first: calls claimed earlier that the voice engine never accepted (a crash after the claim, a
 * refusal) are placed again with the same idempotency key after a backoff; after `MAX_DIAL_ATTEMPTS` the call ends
 * as `Failed`.
 */
export async function dispatchDueCalls(db: DbOrTx, params: DispatchParams): Promise<DispatchResult> {
  const { clock } = params;
  const now = clock();
  const limit = params.limit ?? 500;
  const scope = params.organizationIds ? inArray(calls.organizationId, params.organizationIds) : undefined;
  const waitUntil = params.waitUntil ?? sleepUntil(clock);
  const result: DispatchResult = { dialed: 0, failedCallIds: [], handOverSequenceIds: [], cancelled: 0, deferred: 0, waiting: 0, nextAt: null };
  let nextAt = Infinity;
  const later = (at: Date | number) => (nextAt = Math.min(nextAt, typeof at === "number" ? at : at.getTime()));

  // 1. Recovery: claimed but never accepted by the engine.
  const recovery = await db.transaction(async (tx) => {
    const stale = await tx
      .select({ call: calls, sequence: sequences, agent: agents })
      .from(calls)
      .innerJoin(sequences, eq(sequences.id, calls.sequenceId))
      .innerJoin(agents, eq(agents.id, calls.agentId))
      .where(and(eq(calls.resultType, "Calling"), isNull(calls.providerCallId), scope))
      .orderBy(asc(calls.updatedAt))
      .limit(100)
      .for("update", { of: [calls], skipLocked: true });
    const retry: typeof stale = [];
    const fail: string[] = [];
    for (const row of stale) {
      const dueAt = row.call.updatedAt.getTime() + dialRetryDelayMs(row.call.dialAttempts);
      if (dueAt > now.getTime()) {
        later(dueAt);
        continue;
      }
      if (row.call.dialAttempts >= MAX_DIAL_ATTEMPTS) {
        fail.push(row.call.id);
        continue;
      }
      await tx
        .update(calls)
        .set({ dialAttempts: row.call.dialAttempts + 1, updatedAt: now })
        .where(eq(calls.id, row.call.id));
      retry.push({ ...row, call: { ...row.call, dialAttempts: row.call.dialAttempts + 1 } });
    }
    return { retry, fail };
  });
  const cache = new PlaceRequestCache();
  const placeAll = async (items: Array<{ row: Pick<DialCandidate, "call" | "sequence" | "agent">; slotAt: Date }>) => {
    const accepted: Array<{ callId: string; providerCallId: string; placedAt: Date }> = [];
    await pool(items, params.placeConcurrency ?? 16, async ({ row, slotAt }) => {
      await waitUntil(slotAt);
      try {
        const request = await cache.request(db, row);
        const placedAt = clock();
        const placed = await params.voiceEngine.placeCall(request);
        accepted.push({ callId: row.call.id, providerCallId: placed.providerCallId, placedAt });
        if (!placed.alreadyPlaced) logDialed(row, placedAt, slotAt);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (row.call.dialAttempts >= MAX_DIAL_ATTEMPTS) {
          const outcome = await failCall(db, { callId: row.call.id, now, reason: refusedReason(message) });
          if (outcome.finalized) result.failedCallIds.push(row.call.id);
        } else {
          later(now.getTime() + dialRetryDelayMs(row.call.dialAttempts));
        }
      }
    });
    await recordPlacements(db, accepted);
    result.dialed += accepted.length;
  };
  for (const callId of recovery.fail) {
    const outcome = await failCall(db, { callId, now, reason: refusedReason(`no answer from the voice engine after ${MAX_DIAL_ATTEMPTS} attempts`) });
    if (outcome.finalized) result.failedCallIds.push(callId);
  }
  await placeAll(recovery.retry.map((row) => ({ row, slotAt: now })));

  // 2. Claim due calls through the gate.
  const applied = await db.transaction(async (tx) => {
    const candidates = await lockCandidates(tx, and(eq(calls.resultType, "Scheduled"), lte(calls.scheduledAt, now), scope), { limit, skipLocked: true });
    const { verdicts, slots } = await runDialGate({ tx, now, paced: true }, candidates, params.checks ?? dialChecks);
    const gate = await applyGate(tx, candidates, verdicts, slots, now);
    return { gate, full: candidates.length >= limit, examinedIds: candidates.map((candidate) => candidate.call.id) };
  });
  const { gate } = applied;
  result.cancelled = gate.cancelled.length;
  result.deferred = gate.deferred.length;
  result.waiting = gate.waiting.length;
  result.handOverSequenceIds = gate.cancelled.filter((item) => item.endedSequence && item.chained).map((item) => item.sequenceId);
  for (const item of gate.deferred) later(item.until);
  // A waiting call is looked at again when its check says, never sooner than in 100 ms (no busy loop on a check that
  // names a past moment).
  for (const item of gate.waiting) later(Math.max(item.retryAt?.getTime() ?? now.getTime() + 1000, now.getTime() + 100));
  if (applied.full) later(now);
  await placeAll(gate.claimed.map(({ candidate, slotAt }) => ({ row: candidate, slotAt })));

  // 3. The next due call not looked at in this round. The calls examined are excluded: those still `Scheduled` wait
  // for a rate slot or a check (their `retryAt` is counted above), and counting their past due time again would make
  // the next round start at once and find them still waiting — a busy loop until the slot comes within the horizon.
  const examined = applied.examinedIds.length > 0 ? notInArray(calls.id, applied.examinedIds) : undefined;
  const [next] = await db
    .select({ scheduledAt: calls.scheduledAt })
    .from(calls)
    .where(and(eq(calls.resultType, "Scheduled"), scope, examined))
    .orderBy(asc(calls.scheduledAt))
    .limit(1);
  if (next) later(next.scheduledAt);
  result.nextAt = Number.isFinite(nextAt) ? new Date(nextAt).toISOString() : null;
  return result;
}

/**
 * The earliest moment anything may be dialable (the sweep's one look): the next `Scheduled` call (`calls_due_idx`,
 * one index entry) or a claimed call the voice engine has not accepted yet (its last change: the retry waits from
 * there; `calls_in_flight_idx`). Null: nothing to dial.
 */
export async function findNextDialableAt(db: DbOrTx, params: { organizationIds?: string[] }): Promise<Date | null> {
  const scope = params.organizationIds ? inArray(calls.organizationId, params.organizationIds) : undefined;
  const [scheduled] = await db
    .select({ at: calls.scheduledAt })
    .from(calls)
    .where(and(eq(calls.resultType, "Scheduled"), scope))
    .orderBy(asc(calls.scheduledAt))
    .limit(1);
  const [unplaced] = await db
    .select({ at: calls.updatedAt })
    .from(calls)
    .where(and(eq(calls.resultType, "Calling"), isNull(calls.providerCallId), scope))
    .orderBy(asc(calls.updatedAt))
    .limit(1);
  const times = [scheduled?.at, unplaced?.at].filter((at): at is Date => at !== undefined).map((at) => at.getTime());
  return times.length > 0 ? new Date(Math.min(...times)) : null;
}
