import { and, desc, eq, isNotNull, max } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { agents, calls, organizations, phoneNumberSettings, sequences, twilioCalls, type CallbackFallbackMode } from "@/db/schema";
import { findActiveNumber } from "@/db/queries/numbers";
import { newId } from "@/server/ids";
import { voiceCarrier, type CarrierName } from "@/server/carriers/registry";
import { CALLER_MESSAGE } from "@/server/voice/twilio-realtime/call-state";
import { getLogger } from "@/server/observability/logger";
import { maskPhoneNumber } from "@/server/observability/redact";

export type CallbackFallback = { mode: CallbackFallbackMode; forwardTo: string | null; message: string };

export type InboundCallDecision =
  /** The agent that last called the contact from this number takes the call: a `Calling` inbound call on its sequence. */
  | { kind: "agent"; callId: string; organizationId: string; sequenceId: string; agentId: string }
  /**
   * The agent is not on duty and the number takes messages: the caller hears the message and leaves theirs, recorded as
   * an inbound call on the sequence (a voicemail to us: `Voicemail` once analysed, its recording the message).
   */
  | { kind: "message"; callId: string; organizationId: string; sequenceId: string; fallback: CallbackFallback }
  /** Nobody takes it: the number's fallback (`reason` says why). */
  | { kind: "fallback"; organizationId: string; fallback: CallbackFallback; reason: "unknown-caller" | "agent-not-on-duty" }
  /** No organization owns the number (never bought, released, disputed): refused neutrally (Twilio `<Reject>`), nothing read or written. */
  | { kind: "reject"; reason: "unknown-number" };

export type StartInboundCallParams = {
  /** The caller (Twilio's `From`). */
  from: string;
  /** Our number they called (`To`). */
  to: string;
  /** The provider's call ID (Twilio's CallSid) the inbound call is bound to; null when the engine gives it later (the simulator). */
  providerCallId: string | null;
  now: Date;
  /**
   * The carrier that answers (server/carriers/registry.ts): one that answers as a person writes its `twilio_calls`
   * row in the same transaction; one that takes messages records a known caller's message.
   */
  engine: CarrierName;
};

export function defaultFallbackMessage(organizationName: string | null): string {
  return `Thank you for calling${organizationName ? ` ${organizationName}` : ""}. Nobody can take your call right now; we will call you back. Goodbye.`;
}

/** The number's fallback: its settings row, else the default message (the organization's, else a neutral one). */
export async function findCallbackFallback(db: DbOrTx, params: { organizationId: string; phoneNumber: string }): Promise<CallbackFallback> {
  const [row] = await db
    .select({ settings: phoneNumberSettings, organizationName: organizations.name })
    .from(organizations)
    .leftJoin(phoneNumberSettings, and(eq(phoneNumberSettings.organizationId, organizations.id), eq(phoneNumberSettings.phoneNumber, params.phoneNumber)))
    .where(eq(organizations.id, params.organizationId))
    .limit(1);
  const settings = row?.settings ?? null;
  const message = settings?.fallbackMessage?.trim() || defaultFallbackMessage(row?.organizationName ?? null);
  if (settings?.fallbackMode === "forward" && settings.forwardTo) return { mode: "forward", forwardTo: settings.forwardTo, message };
  return { mode: "message", forwardTo: null, message };
}

/**
 * A contact calls one of our numbers back (docs/sequences.md "Callbacks"). Only the organization that owns the number
 * (docs/numbers.md) is looked at: a number nobody owns is rejected. The owner's agent that last called them from that
 * number takes the call when it is on duty (ACTIVE): an inbound call (`direction: inbound`, step 0, the next attempt)
 * is created `Calling` on that call's sequence, bound to the provider's call, and runs from here like any call
 * (conversation, analysis, charge, call-result webhook) — without moving the sequence. Otherwise (an unknown caller,
 * an agent paused or archived) the number's fallback answers. One transaction: the sequence is locked while the
 * attempt number is taken.
 */
export async function startInboundCall(db: DbOrTx, params: StartInboundCallParams): Promise<InboundCallDecision> {
  const { now } = params;
  const carrier = voiceCarrier(params.engine);
  // Trust boundary: the number's owner is the only organization whose data this call may read or write.
  const owner = await findActiveNumber(db, params.to);
  if (!owner?.inbound) {
    getLogger("call-engine").warn({ from: maskPhoneNumber(params.from), to: params.to }, "inbound call to a number no organization owns: rejected");
    return { kind: "reject", reason: "unknown-number" };
  }
  const organizationId = owner.organizationId;
  const [last] = await db
    .select({ call: { id: calls.id, promptVersionId: calls.promptVersionId }, sequenceId: sequences.id, organizationId: sequences.organizationId, agentId: agents.id, agentStatus: agents.status, promptVersionId: agents.currentPromptVersionId })
    .from(calls)
    .innerJoin(sequences, eq(sequences.id, calls.sequenceId))
    .innerJoin(agents, eq(agents.id, calls.agentId))
    .where(and(eq(sequences.organizationId, organizationId), eq(sequences.phoneNumber, params.from), eq(calls.fromPhoneNumber, params.to), eq(calls.direction, "outbound"), isNotNull(calls.dialedAt)))
    .orderBy(desc(calls.dialedAt))
    .limit(1);

  if (!last || last.agentStatus !== "ACTIVE") {
    const reason = last ? "agent-not-on-duty" : "unknown-caller";
    const fallback = await findCallbackFallback(db, { organizationId, phoneNumber: params.to });
    getLogger("call-engine").info({ from: maskPhoneNumber(params.from), to: params.to, reason, fallback: fallback.mode }, "inbound call to the number's fallback");
    // A known caller of a number that takes messages: their message is kept on their sequence (Twilio records it).
    if (last && fallback.mode === "message" && carrier.takesInboundMessages && params.providerCallId) {
      const callId = await createInboundCall(db, { last, to: params.to, providerCallId: params.providerCallId, now, answeredBy: CALLER_MESSAGE });
      return { kind: "message", callId, organizationId: last.organizationId, sequenceId: last.sequenceId, fallback };
    }
    return { kind: "fallback", organizationId, fallback, reason };
  }

  const callId = await createInboundCall(db, { last, to: params.to, providerCallId: params.providerCallId, now, answeredBy: carrier.answersInboundAsHuman ? "human" : null });
  getLogger("call-engine").info({ callId, sequenceId: last.sequenceId, from: maskPhoneNumber(params.from) }, "inbound call taken by the agent that last called");
  return { kind: "agent", callId, organizationId: last.organizationId, sequenceId: last.sequenceId, agentId: last.agentId };
}

type LastOutboundCall = { call: { id: string; promptVersionId: string | null }; sequenceId: string; organizationId: string; agentId: string; promptVersionId: string | null };

/** The inbound call on the sequence of the contact's last call from the number (the sequence locked while the attempt is taken). */
async function createInboundCall(db: DbOrTx, params: { last: LastOutboundCall; to: string; providerCallId: string | null; now: Date; answeredBy: string | null }): Promise<string> {
  const { last, now } = params;
  const callId = newId("call");
  await db.transaction(async (tx) => {
    await tx.select({ id: sequences.id }).from(sequences).where(eq(sequences.id, last.sequenceId)).for("update");
    const [previous] = await tx
      .select({ attempt: max(calls.attempt) })
      .from(calls)
      .where(and(eq(calls.sequenceId, last.sequenceId), eq(calls.stepNumber, 0)));
    await tx.insert(calls).values({
      id: callId,
      organizationId: last.organizationId,
      agentId: last.agentId,
      sequenceId: last.sequenceId,
      stepNumber: 0,
      direction: "inbound",
      attempt: (previous?.attempt ?? 0) + 1,
      scheduledAt: now,
      resultType: "Calling",
      fromPhoneNumber: params.to,
      promptVersionId: last.promptVersionId ?? last.call.promptVersionId,
      providerCallId: params.providerCallId,
      dialedAt: now,
      dialAttempts: 1,
      providerEventAt: now,
      createdAt: now,
      updatedAt: now,
    });
    if (params.answeredBy && params.providerCallId) {
      // The caller is a person who called us: answered now, no answering-machine detection. A conversation is not
      // recorded (the caller was told nothing about a recording); a message they leave is (docs/sequences.md).
      await tx.insert(twilioCalls).values({
        callId,
        organizationId: last.organizationId,
        callSid: params.providerCallId,
        dialStartedAt: now,
        status: "in-progress",
        answeredBy: params.answeredBy,
        answeredAt: now,
        recordingStatus: params.answeredBy === CALLER_MESSAGE ? null : "absent",
        createdAt: now,
        updatedAt: now,
      });
    }
  });
  return callId;
}
