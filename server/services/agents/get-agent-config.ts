import { desc, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { findExtractedVariableDefinitions, findInputVariableDefinitions, findOutcomeDefinitions, getAgentOrThrow } from "@/db/queries/agents";
import { promptVersions } from "@/db/schema";
import type { TConsoleAgent } from "@/server/schemas/agent-config";
import type { AgentVoiceSettings } from "@/server/voice/agent-voice-settings";
import { effectiveAnswerMoves } from "@/server/voice/answer-classifier/answer-moves";
import { effectiveAnsweredByActions } from "@/server/voice/call-quality";
import { extractedVariableFieldsOf } from "./agent-config";

export type GetAgentConfigParams = { organizationId: string; agentId: string };

const PROMPT_HISTORY_LIMIT = 50;

/** The whole editable configuration of one agent of the organization (404 AGENT_NOT_FOUND otherwise). */
export async function getAgentConfig(db: DbOrTx, params: GetAgentConfigParams): Promise<TConsoleAgent> {
  const agent = await getAgentOrThrow(db, params);
  const [inputs, extracted, outcomes, versions] = await Promise.all([
    findInputVariableDefinitions(db, { agentId: agent.id }),
    findExtractedVariableDefinitions(db, { agentId: agent.id, customerDefinedOnly: false }),
    findOutcomeDefinitions(db, { agentId: agent.id, enabledCustomerDefinedOnly: false }),
    db
      .select()
      .from(promptVersions)
      .where(eq(promptVersions.agentId, agent.id))
      .orderBy(desc(promptVersions.createdAt), desc(promptVersions.id))
      .limit(PROMPT_HISTORY_LIMIT),
  ]);
  const current = versions.find((v) => v.id === agent.currentPromptVersionId) ?? versions[0];
  return {
    agentId: agent.id,
    name: agent.name,
    status: agent.status,
    timezones: agent.timezones,
    phoneNumbers: agent.phoneNumbers,
    steps: agent.steps,
    bookingConfig: agent.bookingConfig ?? null,
    createdAt: agent.createdAt.toISOString(),
    updatedAt: agent.updatedAt.toISOString(),
    prompt: current?.prompt ?? "",
    promptVersionId: current?.id ?? null,
    promptVersions: versions.map((v) => ({
      promptVersionId: v.id,
      createdAt: v.createdAt.toISOString(),
      current: v.id === current?.id,
      preview: v.prompt.slice(0, 160),
    })),
    inputVariables: inputs.map((v) => ({
      id: v.id,
      slug: v.slug,
      displayName: v.displayName,
      description: v.description,
      required: v.required,
    })),
    extractedVariables: extracted.map((v) => ({ id: v.id, ...extractedVariableFieldsOf(v), systemDefault: v.systemDefault })),
    outcomes: outcomes.map((o) => ({
      id: o.id,
      name: o.name,
      description: o.description,
      enabled: o.enabled,
      customerDefined: o.customerDefined,
    })),
    voicemailMessage: agent.voicemailMessage,
    ringTimeoutSeconds: agent.ringTimeoutSeconds,
    maxCallSeconds: agent.maxCallSeconds,
    voice: agent.voice as AgentVoiceSettings["voice"],
    transferConfig: agent.transferConfig ?? null,
    phoneMenuGoal: agent.phoneMenuGoal ?? null,
    greetingMode: agent.greetingMode,
    callPurpose: agent.callPurpose,
    answeredByActions: effectiveAnsweredByActions(agent.answeredByActions),
    answerMoves: effectiveAnswerMoves(agent.answerMoves),
    disclosureIdentification: agent.disclosureIdentification,
    disclosureRecordingNotice: agent.disclosureRecordingNotice,
    recordingNoticeMode: agent.recordingNoticeMode,
    replyEndsSequence: agent.replyEndsSequence,
  };
}
