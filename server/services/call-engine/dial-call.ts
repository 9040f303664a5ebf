import { and, asc, eq, gt, inArray, isNull, lte, notInArray, sql, type SQL } from "drizzle-orm";
import type { DbOrTx, Tx } from "@/db";
import { findCallWithSequenceAndAgent } from "@/db/queries/calls";
import { agents, calls, optOuts, organizations, sequences } from "@/db/schema";
import { getConfig } from "@/server/config/env";
import { getLogger } from "@/server/observability/logger";
import { recordDialLag } from "@/server/observability/metrics";
import { maskPhoneNumber } from "@/server/observability/redact";
import type { AgentVoiceSettings } from "@/server/voice/agent-voice-settings";
import type { PlaceCallRequest, VoiceEngine } from "@/server/voice/types";
import { findCallbackContext, findExtractionDefinitions, findPromptText } from "./call-context";
import { countDialsByNumber } from "./caller-id-check";
import { callerIdOf, dialChecks, runDialGate, type DialCandidate, type DialCheck, type GateVerdict } from "./dial-gate";
import { BURST_CREDIT_MS, defaultOrganizationDialRate, dialPlanningHorizonMs } from "./dial-rate";
import { failCall } from "./finalize-call";
import { buildCallPrivacy, findOrganizationPrivacy, recordPlannedDisclosures, type CallPrivacy } from "@/server/services/privacy/call-privacy";
import { limiter } from "@/server/runtime/limiter";

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
  /** The dial gate's checks (default: all of them, `dialChecks`). */
  checks?: DialCheck[];
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
    const { verdicts, slots } = await runDialGate({ tx, now, paced: false, engine: params.voiceEngine.kind }, [candidate], params.checks);
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

/** Per dispatch round: extraction definitions, prompt texts and privacy settings are read once per agent / prompt version / organization. */
class PlaceRequestCache {
  private readonly definitions = new Map<string, ReturnType<typeof findExtractionDefinitions>>();
  private readonly prompts = new Map<string | null, ReturnType<typeof findPromptText>>();
  private readonly privacy = new Map<string, ReturnType<typeof findOrganizationPrivacy>>();

  request(db: DbOrTx, candidate: Pick<DialCandidate, "call" | "sequence" | "agent">): Promise<PlaceCallRequest> {
    let definitions = this.definitions.get(candidate.agent.id);
    if (!definitions) this.definitions.set(candidate.agent.id, (definitions = findExtractionDefinitions(db, candidate.agent.id)));
    let prompt = this.prompts.get(candidate.call.promptVersionId);
    if (!prompt) this.prompts.set(candidate.call.promptVersionId, (prompt = findPromptText(db, candidate.call.promptVersionId)));
    let privacy = this.privacy.get(candidate.call.organizationId);
    if (!privacy) this.privacy.set(candidate.call.organizationId, (privacy = findOrganizationPrivacy(db, candidate.call.organizationId)));
    return Promise.all([definitions, prompt, privacy]).then(([defs, text, organization]) =>
      toPlaceCallRequest(candidate, defs, text, buildCallPrivacy(organization, candidate, new Date())),
    );
  }
}

/**
 * The call's request, its planned disclosures already recorded as its audit trail (the engines then report what was
 * spoken): everything the provider call needs, so that at the slot only the provider call is left.
 */
async function prepareRequest(db: DbOrTx, cache: PlaceRequestCache, candidate: Pick<DialCandidate, "call" | "sequence" | "agent">): Promise<PlaceCallRequest> {
  const request = await cache.request(db, candidate);
  await recordPlannedDisclosures(db, { callId: request.callId, disclosures: request.privacy.disclosures });
  return request;
}

type PlaceResult = { ok: true; providerCallId: string; alreadyPlaced: boolean; placedAt: Date } | { ok: false; error: unknown; message: string };

async function placeOne(db: DbOrTx, candidate: Pick<DialCandidate, "call" | "sequence" | "agent">, engine: VoiceEngine, placedAt: Date, cache: PlaceRequestCache): Promise<PlaceResult> {
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
function logDialed(candidate: Pick<DialCandidate, "call" | "sequence">, placedAt: Date, slotAt?: Date): void {
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
async function recordPlacements(db: DbOrTx, placements: Array<{ callId: string; providerCallId: string; placedAt: Date }>): Promise<void> {
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

/** Everything the voice engine needs to run the conversation (a real provider receives the same). */
export async function buildPlaceCallRequest(db: DbOrTx, callId: string): Promise<PlaceCallRequest> {
  const row = await findCallWithSequenceAndAgent(db, { callId, organizationId: null });
  if (!row) throw new Error(`call ${callId} vanished while being dialed`);
  const request = await new PlaceRequestCache().request(db, row);
  if (row.call.direction !== "inbound") return request;
  // A callback is never dialed: its audit trail starts here, when it is answered (the first plan is kept).
  await recordPlannedDisclosures(db, { callId, disclosures: request.privacy.disclosures });
  return { ...request, callback: await findCallbackContext(db, row.sequence.id) };
}

function toPlaceCallRequest(
  row: Pick<DialCandidate, "call" | "sequence" | "agent">,
  definitions: Awaited<ReturnType<typeof findExtractionDefinitions>>,
  prompt: Awaited<ReturnType<typeof findPromptText>>,
  privacy: CallPrivacy,
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
        greetingMode: row.agent.greetingMode,
        callPurpose: row.agent.callPurpose,
        answeredByActions: row.agent.answeredByActions ?? {},
      },
      transfer: row.agent.transferConfig ?? null,
      phoneMenuGoal: row.agent.phoneMenuGoal ?? null,
      timezone: row.agent.timezones[0] ?? "UTC",
    },
    contact: {
      name: row.sequence.name,
      timezone: row.sequence.timezone,
      email: row.sequence.toEmailAddress,
      variables: row.sequence.customInputVariables,
    },
    privacy,
  };
}

export type DispatchParams = {
  /** The dispatcher's clock (tests inject a simulated one); `dialedAt` is read from it when each call is placed. */
  clock: () => Date;
  voiceEngine: VoiceEngine;
  /** Due calls examined per claim at most, all organizations together (default 500; each organization gets its capacity). */
  limit?: number;
  /** Only these organizations (tests sharing a database); undefined: all. */
  organizationIds?: string[];
  /** Calls placed at once (default 16; calls waiting for their slot do not count). */
  placeConcurrency?: number;
  /** Waits until a moment (a call's slot, the next claim); by default sleeps (in real time) for its distance from `clock()`. */
  waitUntil?: (at: Date) => Promise<void>;
  /**
   * How long the step keeps claiming (default `CALL_DISPATCH_STEP_BUDGET_MS`); 0: one claim. A claim only starts when
   * `clock()` has reached its moment, so a `waitUntil` that does not move the clock ends the step after one claim.
   */
  budgetMs?: number;
  checks?: DialCheck[];
};

export type DispatchResult = {
  /** Calls the voice engine accepted in this step. */
  dialed: number;
  /** Claims made in this step (each: lock the due calls that can get a slot, run the gate, commit). */
  claims: number;
  /** Calls that ended `Failed` because the provider kept refusing them: announce them like any final result. */
  failedCallIds: string[];
  /** Sequences of a contact chain that ended without a call (opted out at dial time): hand the chain over. */
  handOverSequenceIds: string[];
  cancelled: number;
  deferred: number;
  /** Verdicts "wait" (rate slots beyond the horizon, a check that said wait), counted per claim. */
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

/** Due rows one claim's capacity query looks at, at most (a backlog beyond it is reached as the front drains). */
const CLAIM_SCAN_LIMIT = 20_000;

/**
 * A claimed call this step has not recorded as placed yet is "touched" (`updated_at`) when its claim is older than
 * this (checked every `HOLD_CHECK_MS` of real time, whatever the step is doing), so recovery (which takes a claimed,
 * unplaced call `dialRetryDelayMs(1)` = 10 s after its last change) never places a call a running step still holds
 * (a slow provider, a long queue of placements, a starved process).
 */
const HOLD_REFRESH_MS = 3_000;
const HOLD_CHECK_MS = 1_000;

/**
 * The due calls one claim may examine: per organization, as many as can get a dial slot within the horizon under its
 * own limit (from its cursor in `dial_rate_cursors`, read without a lock — the gate plans the real slots — and its
 * earliest due call) plus a margin (10 %, at least one, so a backlog always has a call that says when the next slot
 * comes), earliest first.
 * Every organization with due calls gets its own capacity, so one organization's backlog never hides another's call.
 * `overflow`: organizations with more due calls than that.
 */
async function claimableCallIds(tx: Tx, params: { now: Date; horizonMs: number; limit: number; organizationIds?: string[] }) {
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

/**
 * The dispatcher's step (DESIGN §5, docs/call-engine.md "The dispatcher"): for up to `budgetMs`, a pipeline of claims
 * and placements.
 *
 * - **Claim** (one transaction): recovery first (calls claimed earlier that the voice engine never accepted are placed
 *   again with the same idempotency key after a backoff; after `MAX_DIAL_ATTEMPTS` the call ends `Failed`); then the
 *   due calls that can get a slot within the horizon (`claimableCallIds`: per organization, its capacity), locked with
 *   `FOR UPDATE SKIP LOCKED` (concurrent dispatchers never take the same call), the dial gate over them, the dialable
 *   ones `Scheduled` → `Calling` with their planned `dialSlotAt`.
 * - **Placement**: each claimed call is placed at its slot (at most `placeConcurrency` placements at once; waiting for
 *   a slot takes no place), and accepted placements are recorded (`dialedAt`, provider call ID) in small batches as they
 *   come, while the next claims go on.
 * - The next claim starts when half the horizon is spent (so the next horizon's slots are planned before the current
 *   one's are placed), or when the gate says something becomes dialable, whichever is later; the step returns when its
 *   budget is spent or nothing is dialable within the horizon, after its placements are recorded, with the next moment
 *   something may be dialable.
 */
export async function dispatchDueCalls(db: DbOrTx, params: DispatchParams): Promise<DispatchResult> {
  const { clock } = params;
  const startedAt = clock().getTime();
  const limit = params.limit ?? 500;
  const horizonMs = dialPlanningHorizonMs();
  const deadline = startedAt + (params.budgetMs ?? getConfig().CALL_DISPATCH_STEP_BUDGET_MS);
  const scope = params.organizationIds ? inArray(calls.organizationId, params.organizationIds) : undefined;
  const waitUntil = params.waitUntil ?? sleepUntil(clock);
  const placeSlot = limiter(params.placeConcurrency ?? 16);
  const result: DispatchResult = { dialed: 0, claims: 0, failedCallIds: [], handOverSequenceIds: [], cancelled: 0, deferred: 0, waiting: 0, nextAt: null };
  /** Retries of calls the engine refused in this step (they are not seen by the claims' recovery until then). */
  let retryAt = Infinity;
  const cache = new PlaceRequestCache();

  /** Claimed by this step, not recorded as placed yet: call ID → when its claim was last refreshed. */
  const held = new Map<string, number>();
  const tasks = new Set<Promise<void>>();
  let fatal: { error: unknown } | null = null;
  const toRecord: Array<{ callId: string; providerCallId: string; placedAt: Date }> = [];
  let recording: Promise<void> | null = null;

  /** Records what was accepted, in batches as it comes (one statement per batch; provider call IDs land promptly). */
  const record = (): Promise<void> => {
    if (recording) return recording;
    if (toRecord.length === 0) return Promise.resolve();
    recording = (async () => {
      try {
        while (toRecord.length > 0) {
          const batch = toRecord.splice(0, toRecord.length);
          await recordPlacements(db, batch);
          for (const placement of batch) held.delete(placement.callId);
          result.dialed += batch.length;
        }
      } catch (error) {
        fatal ??= { error };
      }
    })().finally(() => {
      recording = null;
      if (toRecord.length > 0 && !fatal) void record();
    });
    return recording;
  };

  const place = (row: Pick<DialCandidate, "call" | "sequence" | "agent">, slotAt: Date) => {
    held.set(row.call.id, clock().getTime());
    const task = (async () => {
      // Prepared while the slot is still ahead (reads, the disclosures' audit trail): at the slot, only the provider.
      const prepared = prepareRequest(db, cache, row);
      prepared.catch(() => {}); // awaited, and its failure handled, at the slot
      await waitUntil(slotAt);
      if (fatal) return;
      await placeSlot(async () => {
        try {
          const request = await prepared;
          const placedAt = clock();
          const placed = await params.voiceEngine.placeCall(request);
          toRecord.push({ callId: row.call.id, providerCallId: placed.providerCallId, placedAt });
          if (!placed.alreadyPlaced) logDialed(row, placedAt, slotAt);
        } catch (error) {
          held.delete(row.call.id);
          const message = error instanceof Error ? error.message : String(error);
          if (row.call.dialAttempts >= MAX_DIAL_ATTEMPTS) {
            const outcome = await failCall(db, { callId: row.call.id, now: clock(), reason: refusedReason(message) });
            if (outcome.finalized) result.failedCallIds.push(row.call.id);
          } else {
            retryAt = Math.min(retryAt, clock().getTime() + dialRetryDelayMs(row.call.dialAttempts));
          }
        }
      });
      void record();
    })()
      .catch((error: unknown) => {
        fatal ??= { error };
      })
      .finally(() => tasks.delete(task));
    tasks.add(task);
  };

  /** Keeps the calls this step holds out of recovery's reach (see HOLD_REFRESH_MS). */
  const refreshHolds = async () => {
    const now = clock().getTime();
    const stale = [...held].filter(([, at]) => now - at >= HOLD_REFRESH_MS).map(([callId]) => callId);
    if (stale.length === 0) return;
    await db
      .update(calls)
      .set({ updatedAt: new Date(now) })
      .where(and(inArray(calls.id, stale), eq(calls.resultType, "Calling"), isNull(calls.providerCallId)));
    for (const callId of stale) if (held.has(callId)) held.set(callId, now);
  };

  let refreshing: Promise<void> | null = null;
  const holdTimer = setInterval(() => {
    refreshing ??= refreshHolds()
      .catch(() => {}) // the next check tries again; a lost hold only means an idempotent second placement
      .finally(() => (refreshing = null));
  }, HOLD_CHECK_MS);
  let nextAt = Infinity;
  try {
    for (;;) {
      await refreshHolds();
      const now = clock();
      const claim = await claimOnce(db, { now, limit, horizonMs, scope, organizationIds: params.organizationIds, checks: params.checks, held: [...held.keys()], engine: params.voiceEngine.kind });
      result.claims += 1;
      for (const callId of claim.failed) {
        const outcome = await failCall(db, { callId, now, reason: refusedReason(`no answer from the voice engine after ${MAX_DIAL_ATTEMPTS} attempts`) });
        if (outcome.finalized) result.failedCallIds.push(callId);
      }
      for (const row of claim.retry) place(row, now);
      for (const { candidate, slotAt } of claim.gate.claimed) place(candidate, slotAt);
      result.cancelled += claim.gate.cancelled.length;
      result.deferred += claim.gate.deferred.length;
      result.waiting += claim.gate.waiting.length;
      result.handOverSequenceIds.push(...claim.gate.cancelled.filter((item) => item.endedSequence && item.chained).map((item) => item.sequenceId));
      nextAt = Math.min(claim.nextAt, retryAt);
      if (fatal) break;
      // Something dialable within the horizon: claim again when half of it is spent (the next slots come at the
      // rate's pace; calls another dispatcher holds are its own) or later when the gate says so; at once only when this
      // claim did nothing but move or cancel calls and more are due (a backlog of calls deferred to quiet hours).
      if (nextAt > now.getTime() + horizonMs) break;
      const onlyMoved =
        claim.gate.claimed.length === 0 && claim.gate.waiting.length === 0 && claim.retry.length === 0 && claim.gate.cancelled.length + claim.gate.deferred.length > 0;
      const claimAt = onlyMoved ? nextAt : Math.max(nextAt, now.getTime() + horizonMs / 2);
      if (claimAt >= deadline) break;
      if (claimAt > clock().getTime()) {
        await waitUntil(new Date(claimAt));
        // The wait did not move the clock (a test's clock, a waitUntil that does not wait): the step ends here.
        if (clock().getTime() < claimAt - 5) break;
      }
    }
  } finally {
    // The step ends only when every call it claimed was placed (or refused) and recorded.
    try {
      while (tasks.size > 0) await Promise.all([...tasks]);
      while (recording || (toRecord.length > 0 && !fatal)) await record();
    } finally {
      clearInterval(holdTimer);
      await refreshing;
    }
  }
  const failure = fatal as { error: unknown } | null;
  if (failure) throw failure.error;
  nextAt = Math.min(nextAt, retryAt);
  result.nextAt = Number.isFinite(nextAt) ? new Date(nextAt).toISOString() : null;
  return result;
}

type ClaimResult = {
  /** Claimed earlier and never accepted by the engine, due for another placement (attempt counted). */
  retry: Array<Pick<DialCandidate, "call" | "sequence" | "agent">>;
  /** Claimed and refused `MAX_DIAL_ATTEMPTS` times: to be failed. */
  failed: string[];
  gate: AppliedGate;
  /** The earliest moment something may be dialable again as this claim sees it (Infinity: nothing known). */
  nextAt: number;
};

/** One claim of the dispatcher's step (see `dispatchDueCalls`): recovery, then the due calls through the gate. */
async function claimOnce(
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
  const claimed = await db.transaction(async (tx) => {
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
  return { retry: recovery.retry, failed: recovery.failed, gate, nextAt };
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
