import { z } from "zod";
import { analyzeWithRules } from "./rule-based";
import { conversationResultTypes, type AnalysisInput, type AnalysisResult, type CallAnalyzer, type FinalResultType } from "./types";
import { normalizeAnalysis } from "./values";

export type LlmAnalyzerOptions = {
  /** Base URL of an OpenAI-compatible API (e.g. `https://api.openai.com/v1`) or its full `/chat/completions` URL. */
  url: string;
  model: string;
  apiKey?: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
};

export class AnalysisError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "AnalysisError";
  }
}

const ZActionOut = z.object({
  description: z.string(),
  actionKey: z.string(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

const ZModelOutput = z.object({
  resultType: z.string(),
  summary: z.string(),
  extractedVariables: z.record(z.string(), z.unknown()).default({}),
  outcomes: z.array(z.object({ name: z.string(), reasoning: z.string() })).default([]),
  agentActions: z.array(ZActionOut).default([]),
  humanActions: z.array(ZActionOut).default([]),
});

export function chatCompletionsUrl(url: string): string {
  const trimmed = url.replace(/\/+$/, "");
  return trimmed.endsWith("/chat/completions") ? trimmed : `${trimmed}/chat/completions`;
}

/** The result types the model may choose from, given what the telephony layer already knows. */
function allowedResultTypes(input: AnalysisInput): FinalResultType[] {
  return input.disposition === "voicemail" ? ["Voicemail"] : [...conversationResultTypes];
}

const SYSTEM_PROMPT = [
  "You analyse transcripts of outbound sales and scheduling phone calls made by an AI agent.",
  "Answer with one JSON object only, with exactly these keys:",
  '{"resultType": string, "summary": string, "extractedVariables": object, "outcomes": [{"name": string, "reasoning": string}],',
  ' "agentActions": [{"description": string, "actionKey": string, "metadata": object}], "humanActions": [same shape]}',
  "Rules: resultType is one of allowedResultTypes. summary is 1-3 sentences in the third person.",
  "extractedVariables has one key per extraction variable slug; use null when the call did not reveal it; DROPDOWN values must be",
  "one of dropdownOptions; DATE/TIME values are ISO 8601 with an offset; NUMBER values are numbers; BOOLEAN values are booleans.",
  "outcomes: zero or more names taken verbatim from outcomeDefinitions, each with a one-sentence reasoning.",
  "agentActions are things the agent did; humanActions are things the contact asked for. actionKey is snake_case.",
].join(" ");

/**
 * Post-call analysis by an LLM behind an OpenAI-compatible chat-completions endpoint (`ANALYSIS_LLM_URL`,
 * `ANALYSIS_LLM_MODEL`, `ANALYSIS_LLM_API_KEY`). Calls that never reached a person (busy, invalid number, provider
 * error) are not sent to the model: there is nothing to read. Whatever the model answers is held to the same
 * contract as the rule-based analyser (`normalizeAnalysis`).
 */
export function createLlmAnalyzer(options: LlmAnalyzerOptions): CallAnalyzer {
  const doFetch = options.fetch ?? fetch;
  return {
    kind: "llm",
    async analyze(input: AnalysisInput): Promise<AnalysisResult> {
      if (input.disposition !== "answered" && input.disposition !== "voicemail") return analyzeWithRules(input);
      const allowed = allowedResultTypes(input);
      const userContent = {
        allowedResultTypes: allowed,
        agentName: input.agent.name,
        contact: { name: input.contact.name, timezone: input.contact.timezone, variables: input.contact.variables },
        callEndedAt: input.endedAt.toISOString(),
        durationSeconds: input.durationSeconds,
        meetingBooked: input.meeting,
        extractionVariables: input.extractionDefinitions.map((definition) => ({
          slug: definition.slug,
          displayName: definition.displayName,
          description: definition.description,
          type: definition.type,
          ...(definition.dropdownOptions ? { dropdownOptions: definition.dropdownOptions } : {}),
        })),
        outcomeDefinitions: input.outcomeDefinitions,
        transcript: input.transcript ?? "",
      };
      let response: Response;
      try {
        response = await doFetch(chatCompletionsUrl(options.url), {
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
          },
          body: JSON.stringify({
            model: options.model,
            temperature: 0,
            response_format: { type: "json_object" },
            messages: [
              { role: "system", content: SYSTEM_PROMPT },
              { role: "user", content: JSON.stringify(userContent) },
            ],
          }),
          signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
        });
      } catch (error) {
        throw new AnalysisError(`analysis endpoint unreachable: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
      const text = await response.text();
      if (!response.ok) throw new AnalysisError(`analysis endpoint answered ${response.status}: ${text.slice(0, 200)}`);
      let content: string;
      try {
        const body = JSON.parse(text) as { choices?: Array<{ message?: { content?: string | null } }> };
        content = body.choices?.[0]?.message?.content ?? "";
      } catch (error) {
        throw new AnalysisError("analysis endpoint returned a body that is not JSON", { cause: error });
      }
      const json = content.replace(/^\s*```(?:json)?\s*|\s*```\s*$/g, "");
      let parsed: z.infer<typeof ZModelOutput>;
      try {
        parsed = ZModelOutput.parse(JSON.parse(json));
      } catch (error) {
        throw new AnalysisError("the model's answer is not the expected JSON object", { cause: error });
      }
      const resultType = allowed.find((type) => type.toLowerCase() === parsed.resultType.trim().toLowerCase());
      if (!resultType) throw new AnalysisError(`the model chose resultType "${parsed.resultType}", not one of ${allowed.join(", ")}`);
      const toAction = (item: z.infer<typeof ZActionOut>) => ({
        description: item.description,
        actionKey: item.actionKey,
        status: "completed",
        completedAt: input.endedAt.toISOString(),
        metadata: item.metadata ?? {},
      });
      return normalizeAnalysis(
        {
          resultType,
          summary: parsed.summary,
          extractedVariables: parsed.extractedVariables as AnalysisResult["extractedVariables"],
          outcomes: parsed.outcomes,
          agentActions: parsed.agentActions.map(toAction),
          humanActions: parsed.humanActions.map(toAction),
        },
        input,
      );
    },
  };
}
