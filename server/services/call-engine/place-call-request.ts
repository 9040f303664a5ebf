import type { DbOrTx } from "@/db";
import { findCallWithSequenceAndAgent } from "@/db/queries/calls";
import type { AgentVoiceSettings } from "@/server/voice/agent-voice-settings";
import { effectiveAnswerMoves } from "@/server/voice/answer-classifier/answer-moves";
import type { PlaceCallRequest } from "@/server/voice/types";
import { findCallbackContext, findExtractionDefinitions, findPromptText } from "./call-context";
import type { DialCandidate } from "./dial-gate";
import { buildCallPrivacy, findOrganizationPrivacy, recordPlannedDisclosures, type CallPrivacy } from "@/server/services/privacy/call-privacy";

/**
 * The voice engine's request for a call (`PlaceCallRequest`: agent, prompt, goals, contact, privacy), built from its
 * rows, with a per-round cache of what several calls share and the planned disclosures recorded as its audit trail.
 */

/** Per dispatch round: extraction definitions, prompt texts and privacy settings are read once per agent / prompt version / organization. */
export class PlaceRequestCache {
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
export async function prepareRequest(db: DbOrTx, cache: PlaceRequestCache, candidate: Pick<DialCandidate, "call" | "sequence" | "agent">): Promise<PlaceCallRequest> {
  const request = await cache.request(db, candidate);
  await recordPlannedDisclosures(db, { callId: request.callId, disclosures: request.privacy.disclosures });
  return request;
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
        answerMoves: effectiveAnswerMoves(row.agent.answerMoves),
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
