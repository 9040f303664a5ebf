import { noCallPrivacyDisclosures } from "@/server/services/privacy/disclosures";
import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { getAgentOrThrow, type Agent } from "@/db/queries/agents";
import { promptVersions, type TestContact } from "@/db/schema";
import type { ExtractionDefinition, OutcomeDefinition } from "@/server/analysis/types";
import { AppError } from "@/server/errors";
import { findAnalysisOutcomes, findExtractionDefinitions } from "@/server/services/call-engine/call-context";
import type { AgentVoiceSettings } from "@/server/voice/agent-voice-settings";
import { effectiveAnswerMoves } from "@/server/voice/answer-classifier/answer-moves";
import type { PlaceCallRequest } from "@/server/voice/types";

/** What every test of one agent on one prompt version shares: the agent, the version's prompt, its definitions. */
export type AgentTestContext = {
  agent: Agent;
  promptVersionId: string;
  prompt: string;
  extractionDefinitions: Array<ExtractionDefinition & { systemDefault: boolean }>;
  outcomeDefinitions: OutcomeDefinition[];
};

/**
 * Loads an agent of the organization (AGENT_NOT_FOUND otherwise) with one of its prompt versions: the named one
 * (PROMPT_VERSION_NOT_FOUND when it is not this agent's), else the current one. A version is the prompt only: the run uses the
 * agent's current variables, outcomes and calendar.
 */
export async function loadAgentTestContext(db: DbOrTx, params: { organizationId: string; agentId: string; promptVersionId?: string | null }): Promise<AgentTestContext> {
  const agent = await getAgentOrThrow(db, params);
  const versionId = params.promptVersionId ?? agent.currentPromptVersionId;
  const [version] = versionId
    ? await db
        .select({ id: promptVersions.id, prompt: promptVersions.prompt })
        .from(promptVersions)
        .where(and(eq(promptVersions.id, versionId), eq(promptVersions.agentId, agent.id)))
        .limit(1)
    : [];
  if (!version) throw new AppError("PROMPT_VERSION_NOT_FOUND", `Prompt version ${versionId ?? "(none)"} is not a version of agent ${agent.id}.`);
  const [extractionDefinitions, outcomeDefinitions] = await Promise.all([findExtractionDefinitions(db, agent.id), findAnalysisOutcomes(db, agent.id)]);
  return { agent, promptVersionId: version.id, prompt: version.prompt, extractionDefinitions, outcomeDefinitions };
}

/** The place-call request a phone call of this agent would carry, for a test contact: the call's instructions are built from it. */
export function testPlaceCallRequest(context: AgentTestContext, params: { testId: string; contact: TestContact; inputVariables: Record<string, string> }): PlaceCallRequest {
  const { agent } = context;
  return {
    callId: params.testId,
    organizationId: agent.organizationId,
    // A test reaches no contact: nothing is disclosed, recorded or redacted (docs/compliance.md is about calls).
    privacy: { disclosures: noCallPrivacyDisclosures(new Date()), keepRecordings: false, redaction: { categories: [], patterns: [] }, exemptions: { phoneNumbers: [], emails: [] } },
    from: agent.phoneNumbers[0] ?? "",
    to: "",
    toExt: "",
    agent: {
      agentId: agent.id,
      name: agent.name,
      prompt: context.prompt,
      hasBookingTool: agent.bookingConfig !== null,
      goals: context.extractionDefinitions
        .filter((definition) => !definition.systemDefault)
        .map(({ slug, displayName, description, type, dropdownOptions }) => ({ slug, displayName, description, type, dropdownOptions })),
      voice: {
        voicemailMessage: agent.voicemailMessage,
        ringTimeoutSeconds: agent.ringTimeoutSeconds,
        maxCallSeconds: agent.maxCallSeconds,
        voice: agent.voice as AgentVoiceSettings["voice"],
        greetingMode: agent.greetingMode,
        callPurpose: agent.callPurpose,
        answeredByActions: agent.answeredByActions ?? {},
        answerMoves: effectiveAnswerMoves(agent.answerMoves),
      },
    },
    contact: { name: params.contact.name, timezone: params.contact.timezone, email: params.contact.email, variables: params.inputVariables },
  };
}

/** A test contact with defaults filled in: "Test Caller", no email, the agent's first timezone. */
export function testContactOf(agent: Pick<Agent, "timezones">, contact: Partial<TestContact> | undefined): TestContact {
  return {
    name: contact?.name?.trim() || "Test Caller",
    email: contact?.email?.trim() || null,
    timezone: contact?.timezone?.trim() || agent.timezones[0] || "UTC",
  };
}
