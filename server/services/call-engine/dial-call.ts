import { and, eq, isNull, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { findCallWithSequenceAndAgent } from "@/db/queries/calls";
import { getConfig } from "@/server/config/env";
import { getLogger } from "@/server/observability/logger";
import { recordDialLag } from "@/server/observability/metrics";
import { maskPhoneNumber } from "@/server/observability/redact";
import { agents, calls, optOuts, sequences } from "@/db/schema";
import { firstInstantInWindow, stepTimezone } from "@/server/services/scheduling/compute-step-due-at";
import type { AgentVoiceSettings } from "@/server/voice/agent-voice-settings";
import type { PlaceCallRequest, VoiceEngine } from "@/server/voice/types";
import { agentTimezoneOf, findExtractionDefinitions, findPromptText, pickFromPhoneNumber } from "./call-context";
import { failCall } from "./finalize-call";

/** How long a call waits before the engine looks again while its agent is paused (default 5 minutes). */
export function pausedRecheckSeconds(): number {
  return getConfig().CALL_PAUSED_RECHECK_SECONDS;
}

export type DialDueCallParams = {
  callId: string;
  now: Date;
  voiceEngine: VoiceEngine;
  /**
   * When the voice engine refuses the call: `throw` (default; the step is retried) or `fail-call` (the last attempt:
   * the call ends as `Failed` — a provider error — and the sequence moves on like after any failed call).
   */
  onPlaceError?: "throw" | "fail-call";
};

export type DialOutcome =
  | { status: "dialed"; callId: string; providerCallId: string; alreadyPlaced: boolean }
  /** Already past dialing (Calling, Processing Analysis or final): nothing was done. */
  | { status: "in-flight"; callId: string; resultType: string }
  /** Not dialed now; the call is (still) Scheduled and due at `until`. */
  | { status: "deferred"; callId: string; until: string; reason: "not-due" | "outside-window" | "agent-paused" }
  /** The voice engine refused the call for good: it ended as `Failed` (announce it like any final result). */
  | { status: "failed"; callId: string; message: string }
  /** Not dialed and never will be: the call became Cancelled (or was). */
  | { status: "skipped"; callId: string; reason: "not-found" | "sequence-not-in-progress" | "opted-out"; sequenceId?: string; chained?: boolean };

type LockedRow = { call: typeof calls.$inferSelect; sequence: typeof sequences.$inferSelect; agent: typeof agents.$inferSelect };

type Claim =
  | { kind: "place"; row: LockedRow }
  | { kind: "done"; outcome: DialOutcome };

/**
 * Dials a due call, at most once. In one transaction (call and sequence locked by one statement): re-checks
 * everything that may have changed while the call waited — the sequence is still in progress, the number has not
 * opted out since, the agent is ACTIVE (a PAUSED or ARCHIVED agent does not dial: the call is pushed back by
 * `CALL_PAUSED_RECHECK_SECONDS` and looked at again then), and the moment is inside the step's calling window
 * (a call that became due while the service was down is moved to the window's next opening, once) — then moves
 * `Scheduled` → `Calling` with `dialedAt`, the from-number and the prompt version. The voice engine is called
 * after commit with the callId as idempotency key, so a retried step (or a second dispatcher) never dials twice:
 * a `Calling` call without a provider ID is placed again with the same key, which the engine deduplicates.
 */
export async function dialDueCall(db: DbOrTx, params: DialDueCallParams): Promise<DialOutcome> {
  const { callId, now } = params;
  const claim = await db.transaction(async (tx): Promise<Claim> => {
    const [row] = await tx
      .select({
        call: calls,
        sequence: sequences,
        agent: agents,
        // Suppression: the number opted out (in any sequence of the organization) after this call was scheduled.
        optedOut: sql<boolean>`exists (select 1 from ${optOuts} where ${optOuts.organizationId} = ${sequences.organizationId} and ${optOuts.phoneNumber} = ${sequences.phoneNumber})`,
      })
      .from(calls)
      .innerJoin(sequences, eq(sequences.id, calls.sequenceId))
      .innerJoin(agents, eq(agents.id, calls.agentId))
      .where(eq(calls.id, callId))
      .for("update", { of: [calls, sequences] });
    if (!row) return { kind: "done", outcome: { status: "skipped", callId, reason: "not-found" } };
    const { call, sequence, agent } = row;

    if (call.resultType === "Calling" && !call.providerCallId) return { kind: "place", row };
    if (call.resultType !== "Scheduled" && call.resultType !== "Rescheduled") {
      return { kind: "done", outcome: { status: "in-flight", callId, resultType: call.resultType } };
    }
    if (sequence.lifecycleStatus !== "in progress") {
      await tx.update(calls).set({ resultType: "Cancelled", updatedAt: now }).where(eq(calls.id, callId));
      return { kind: "done", outcome: { status: "skipped", callId, reason: "sequence-not-in-progress", sequenceId: sequence.id } };
    }
    if (call.scheduledAt.getTime() > now.getTime()) {
      return { kind: "done", outcome: { status: "deferred", callId, until: call.scheduledAt.toISOString(), reason: "not-due" } };
    }
    if (row.optedOut) {
      await tx
        .update(calls)
        .set({ resultType: "Cancelled", summary: "Not dialed: the number is on the organization's opt-out list.", updatedAt: now })
        .where(eq(calls.id, callId));
      await tx.update(sequences).set({ lifecycleStatus: "cancelled", endedAt: now, updatedAt: now }).where(eq(sequences.id, sequence.id));
      return { kind: "done", outcome: { status: "skipped", callId, reason: "opted-out", sequenceId: sequence.id, chained: sequence.groupKey !== null } };
    }

    const reschedule = async (until: Date, reason: "outside-window" | "agent-paused"): Promise<Claim> => {
      await tx
        .update(calls)
        .set({ scheduledAt: until, rescheduledAt: now, updatedAt: now })
        .where(eq(calls.id, callId));
      return { kind: "done", outcome: { status: "deferred", callId, until: until.toISOString(), reason } };
    };
    if (agent.status !== "ACTIVE") return reschedule(new Date(now.getTime() + pausedRecheckSeconds() * 1000), "agent-paused");

    const step = sequence.steps[call.stepNumber - 1];
    if (step && !sequence.bypassCallWindows) {
      const zone = stepTimezone(step, sequence.timezone, agentTimezoneOf(agent, sequence.timezone));
      const opens = firstInstantInWindow(now.getTime(), step.executionWindowConfig.timeWindow, zone);
      if (opens > now.getTime()) return reschedule(new Date(opens), "outside-window");
    }

    const dialing = {
      resultType: "Calling" as const,
      dialedAt: now,
      fromPhoneNumber: pickFromPhoneNumber(agent.phoneNumbers, sequence.phoneNumber),
      promptVersionId: call.promptVersionId ?? agent.currentPromptVersionId,
      updatedAt: now,
    };
    await tx.update(calls).set(dialing).where(eq(calls.id, callId));
    return { kind: "place", row: { ...row, call: { ...call, ...dialing } } };
  });
  if (claim.kind === "done") return claim.outcome;

  const request = await placeCallRequestFor(db, claim.row);
  let placed: Awaited<ReturnType<VoiceEngine["placeCall"]>>;
  try {
    placed = await params.voiceEngine.placeCall(request);
  } catch (error) {
    if (params.onPlaceError !== "fail-call") throw error;
    const message = error instanceof Error ? error.message : String(error);
    await failCall(db, { callId, now, reason: `The call failed: the voice provider refused it (${message.slice(0, 200)}).` });
    return { status: "failed", callId, message };
  }
  await db
    .update(calls)
    .set({ providerCallId: placed.providerCallId, updatedAt: sql`greatest(${calls.updatedAt}, ${now.toISOString()}::timestamptz)` })
    .where(and(eq(calls.id, callId), isNull(calls.providerCallId)));
  if (!placed.alreadyPlaced) {
    const lagSeconds = Math.max(0, (now.getTime() - claim.row.call.scheduledAt.getTime()) / 1000);
    recordDialLag(lagSeconds);
    getLogger("call-engine").info(
      { callId, sequenceId: claim.row.sequence.id, to: maskPhoneNumber(claim.row.sequence.phoneNumber), step: claim.row.call.stepNumber, lagMs: Math.round(lagSeconds * 1000) },
      "call dialed",
    );
  }
  return { status: "dialed", callId, providerCallId: placed.providerCallId, alreadyPlaced: placed.alreadyPlaced };
}

/** Everything the voice engine needs to run the conversation (a real provider receives the same). */
export async function buildPlaceCallRequest(db: DbOrTx, callId: string): Promise<PlaceCallRequest> {
  const row = await findCallWithSequenceAndAgent(db, { callId, organizationId: null });
  if (!row) throw new Error(`call ${callId} vanished while being dialed`);
  return placeCallRequestFor(db, row);
}

async function placeCallRequestFor(db: DbOrTx, row: LockedRow): Promise<PlaceCallRequest> {
  const [definitions, prompt] = await Promise.all([findExtractionDefinitions(db, row.agent.id), findPromptText(db, row.call.promptVersionId)]);
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
