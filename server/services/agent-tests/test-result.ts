import type { Call, CallMetadataRow } from "@/db/queries/calls";
import type { TestContact } from "@/db/schema";
import { getCallAnalyzer } from "@/server/analysis";
import type { AnalysisResult } from "@/server/analysis/types";
import { mergeActions } from "@/server/services/call-engine/finalize-call";
import { toCallEventPayload } from "@/server/services/calls/call-metadata";
import type { TCallEventPayload } from "@/server/schemas/call";
import type { AgentTestContext } from "./test-context";
import type { TestToolState } from "./test-tools";

export type AnalyzeTestConversationParams = {
  context: AgentTestContext;
  testId: string;
  contact: TestContact;
  inputVariables: Record<string, string>;
  lines: Array<{ speaker: "agent" | "customer"; text: string }>;
  durationSeconds: number;
  startedAt: Date;
  endedAt: Date;
  tools: TestToolState;
};

/** `Agent: …` / `Customer: …` lines, as the voice engines hand transcripts to the analyser. */
export function formatTestTranscript(lines: AnalyzeTestConversationParams["lines"]): string {
  return lines.map((line) => `${line.speaker === "agent" ? "Agent" : "Customer"}: ${line.text}`).join("\n");
}

/**
 * A test conversation through the process's post-call analyser (the same one calls go through, with the same input
 * a call gives it), then into the call-result payload builder the webhook uses. Like a call: a contact who opted out
 * during the conversation makes the result Opted Out, and the booking tool's action is kept beside the analyser's.
 */
export async function analyzeTestConversation(params: AnalyzeTestConversationParams): Promise<{ analysis: AnalysisResult; payload: TCallEventPayload }> {
  const { context } = params;
  const transcript = formatTestTranscript(params.lines);
  let analysis = await getCallAnalyzer().analyze({
    callId: params.testId,
    disposition: "answered",
    transcript,
    durationSeconds: params.durationSeconds,
    endedAt: params.endedAt,
    agent: { name: context.agent.name },
    contact: { name: params.contact.name, timezone: params.contact.timezone, variables: params.inputVariables },
    extractionDefinitions: context.extractionDefinitions,
    outcomeDefinitions: context.outcomeDefinitions,
    meeting: params.tools.meeting,
    errorMessage: null,
  });
  if (params.tools.optedOut && analysis.resultType !== "Opted Out") analysis = { ...analysis, resultType: "Opted Out" };
  const call = {
    id: params.testId,
    organizationId: context.agent.organizationId,
    agentId: context.agent.id,
    sequenceId: "",
    stepNumber: 1,
    attempt: 1,
    scheduledAt: params.startedAt,
    resultType: analysis.resultType,
    fromPhoneNumber: context.agent.phoneNumbers[0] ?? "",
    duration: params.durationSeconds,
    promptVersionId: context.promptVersionId,
    rescheduledAt: null,
    summary: analysis.summary,
    transcript,
    extractedVariables: analysis.extractedVariables,
    outcomes: analysis.outcomes,
    agentActions: mergeActions(params.tools.agentActions, analysis.agentActions),
    humanActions: analysis.humanActions,
    followUpMeetingDetails: params.tools.meeting,
    crmSchedulingDetails: params.tools.crmSchedulingDetails,
    createdAt: params.startedAt,
    updatedAt: params.endedAt,
  } as Call;
  const row: CallMetadataRow = {
    call,
    sequenceId: "",
    lifecycleStatus: "test",
    name: params.contact.name,
    phoneNumber: "",
    phoneNumberExt: "",
    timezone: params.contact.timezone,
    customInputVariables: params.inputVariables,
    agentName: context.agent.name,
  };
  return { analysis, payload: toCallEventPayload(row) };
}
