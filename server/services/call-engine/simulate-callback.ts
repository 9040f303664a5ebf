import { and, desc, eq, isNotNull } from "drizzle-orm";
import type { Db } from "@/db";
import { getSequenceOrThrow } from "@/db/queries/sequences";
import { calls } from "@/db/schema";
import { carrierOfEngine } from "@/server/carriers/registry";
import { AppError } from "@/server/errors";
import type { VoiceEngine } from "@/server/voice/types";
import { buildPlaceCallRequest } from "./dial-call";
import { startInboundCall } from "./inbound-call";

export type SimulateCallbackParams = { organizationId: string; sequenceId: string; voiceEngine: VoiceEngine; now: Date };

export type SimulateCallbackOutcome =
  | { outcome: "agent"; callId: string; from: string; to: string }
  | { outcome: "rejected"; reason: "unknown-number"; from: string; to: string }
  | { outcome: "fallback"; reason: string; fallbackMode: "message" | "forward"; message: string; forwardTo: string | null; from: string; to: string };

/**
 * Embedded mode (VOICE_ENGINE=simulator; docs/sequences.md "Callbacks"): the contact of the sequence calls back the
 * number that last called them, decided exactly as a Twilio callback is (`startInboundCall`): the agent on duty takes
 * it — an inbound call on the sequence, played by the deterministic simulator like a call to that number (its last
 * digit chooses the conversation), then analysed, charged and sent to the webhook like any call — or the number's
 * fallback would answer (nothing is placed; the answer says what the caller would hear).
 * Raised: SEQUENCE_NOT_FOUND (not this organization's), INVALID_REQUEST (the contact was never called, so there is no
 * number to call back; or the engine is not the simulator — a real engine's callbacks come from the phone network).
 */
export async function simulateCallback(db: Db, params: SimulateCallbackParams): Promise<SimulateCallbackOutcome> {
  if (!carrierOfEngine(params.voiceEngine.kind).simulatesCallbacks) {
    throw new AppError("INVALID_REQUEST", "Callbacks are simulated with the embedded voice simulator only; with a real voice engine the contact calls the number.");
  }
  const sequence = await getSequenceOrThrow(db, { organizationId: params.organizationId, sequenceId: params.sequenceId });
  const [last] = await db
    .select({ fromPhoneNumber: calls.fromPhoneNumber })
    .from(calls)
    .where(and(eq(calls.sequenceId, sequence.id), eq(calls.direction, "outbound"), isNotNull(calls.dialedAt)))
    .orderBy(desc(calls.dialedAt))
    .limit(1);
  if (!last?.fromPhoneNumber) throw new AppError("INVALID_REQUEST", "This contact has not been called yet: there is no number for them to call back.");
  const from = sequence.phoneNumber;
  const to = last.fromPhoneNumber;
  const decision = await startInboundCall(db, { from, to, providerCallId: null, now: params.now, engine: "simulator" });
  // (A message is only taken by a carrier that records it: the simulator, the engine given here, never takes one.)
  if (decision.kind === "reject") {
    return { outcome: "rejected", reason: decision.reason, from, to };
  }
  if (decision.kind !== "agent") {
    const reason = decision.kind === "fallback" ? decision.reason : "agent-not-on-duty";
    return { outcome: "fallback", reason, fallbackMode: decision.fallback.mode, message: decision.fallback.message, forwardTo: decision.fallback.forwardTo, from, to };
  }
  const request = await buildPlaceCallRequest(db, decision.callId);
  // The simulator calls the contact's number; its events come back through /api/voice/events as for any call.
  const placed = await params.voiceEngine.placeCall(request);
  await db
    .update(calls)
    .set({ providerCallId: placed.providerCallId })
    .where(and(eq(calls.id, decision.callId), eq(calls.resultType, "Calling")));
  return { outcome: "agent", callId: decision.callId, from, to };
}
