import type { CallAction, CallOutcome, FollowUpMeetingDetails } from "@/db/schema";
import type { CallDisposition } from "@/server/voice/types";

/** The result types an ended call can finish with. */
export const finalResultTypes = [
  "Goal Completed",
  "Goal Not Completed",
  "Voicemail",
  "Busy",
  "No Conversation",
  "Opted Out",
  "Invalid Phone Number",
  "Failed",
] as const;
export type FinalResultType = (typeof finalResultTypes)[number];

/** Result types the analyser chooses between when the call was answered by a person. */
export const conversationResultTypes = ["Goal Completed", "Goal Not Completed", "No Conversation", "Opted Out"] as const satisfies readonly FinalResultType[];

export type ExtractionDefinition = {
  slug: string;
  displayName: string;
  description: string;
  type: string;
  dropdownOptions: string[] | null;
  datetimeFormat: string | null;
  formatDatetimeInUtc: boolean | null;
};

export type OutcomeDefinition = { name: string; description: string };

export type AnalysisInput = {
  callId: string;
  disposition: CallDisposition;
  transcript: string | null;
  durationSeconds: number;
  endedAt: Date;
  agent: { name: string };
  contact: { name: string; timezone: string; variables: Record<string, string> };
  /** The agent's non-deleted extraction definitions: the keys of `extractedVariables`. */
  extractionDefinitions: ExtractionDefinition[];
  /** The agent's enabled, customer-defined outcome definitions: the only names `outcomes` may use. */
  outcomeDefinitions: OutcomeDefinition[];
  /** Set when a meeting was booked during the call. */
  meeting: FollowUpMeetingDetails | null;
  errorMessage: string | null;
};

export type AnalysisResult = {
  resultType: FinalResultType;
  summary: string;
  extractedVariables: Record<string, string | number | boolean | null>;
  outcomes: CallOutcome[];
  agentActions: CallAction[];
  humanActions: CallAction[];
};

/** Post-call analysis. Implementations: rule-based (default) and an LLM over an OpenAI-compatible endpoint. */
export type CallAnalyzer = {
  kind: string;
  analyze(input: AnalysisInput): Promise<AnalysisResult>;
};
