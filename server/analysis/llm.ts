import OpenAI from "openai";
import { zodResponseFormat } from "openai/helpers/zod";
import { z } from "zod";
import { analyzeWithRules } from "./rule-based";
import { conversationResultTypes, type AnalysisInput, type AnalysisResult, type CallAnalyzer, type FinalResultType } from "./types";
import { normalizeAnalysis } from "./values";

export type LlmAnalyzerOptions = {
  /** Base URL of an OpenAI-compatible API (e.g. `https://api.openai.com/v1`); a full `/chat/completions` URL is accepted. */
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

/** An action the agent took or the contact asked for (strict structured outputs allow no free-form metadata). */
const ZActionOut = z.object({
  description: z.string().describe("What was done or asked, in one sentence."),
  actionKey: z.string().describe("snake_case identifier, e.g. send_pricing."),
});

/** A variable's value as the model may give it; `normalizeAnalysis` then holds it to the definition's type. */
const ZVariableValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/**
 * The answer the model must give, as a zod schema sent as OpenAI structured outputs (strict JSON schema): the result
 * type among those allowed for this call, exactly this agent's extraction variables as keys, outcome names from
 * this agent's definitions.
 */
export function analysisOutputSchema(input: AnalysisInput, allowed: readonly FinalResultType[]) {
  const variables = Object.fromEntries(
    input.extractionDefinitions.map((definition) => [
      definition.slug,
      ZVariableValue.describe(`${definition.displayName} (${definition.type}${definition.dropdownOptions ? `: one of ${definition.dropdownOptions.join(", ")}` : ""}); null when the call did not reveal it.`),
    ]),
  );
  const names = input.outcomeDefinitions.map((definition) => definition.name);
  const outcomeName = names.length > 0 ? z.enum(names as [string, ...string[]]) : z.string();
  return z.object({
    resultType: z.enum(allowed as [FinalResultType, ...FinalResultType[]]),
    summary: z.string().describe("1-3 sentences, third person."),
    extractedVariables: z.object(variables),
    outcomes: z.array(z.object({ name: outcomeName, reasoning: z.string() })),
    agentActions: z.array(ZActionOut),
    humanActions: z.array(ZActionOut),
  });
}

export function chatCompletionsBaseUrl(url: string): string {
  return url.replace(/\/+$/, "").replace(/\/chat\/completions$/, "");
}

/** The result types the model may choose from, given what the telephony layer already knows. */
function allowedResultTypes(input: AnalysisInput): FinalResultType[] {
  return input.disposition === "voicemail" ? ["Voicemail"] : [...conversationResultTypes];
}

const SYSTEM_PROMPT = [
  "You analyse transcripts of outbound sales and scheduling phone calls made by an AI agent.",
  "Choose resultType from the allowed values. summary is 1-3 sentences in the third person.",
  "extractedVariables: one value per variable; null when the call did not reveal it; DROPDOWN values must be one of the options;",
  "DATE/TIME values are ISO 8601 with an offset; NUMBER values are numbers; BOOLEAN values are booleans.",
  "outcomes: zero or more of the agent's outcome names, each with a one-sentence reasoning.",
  "agentActions are things the agent did; humanActions are things the contact asked for. actionKey is snake_case.",
].join(" ");

/**
 * Post-call analysis by an LLM through the official `openai` package (`ANALYSIS_LLM_URL`, `ANALYSIS_LLM_MODEL`,
 * `ANALYSIS_LLM_API_KEY`): one chat completion with structured outputs built from `analysisOutputSchema` and parsed
 * by the package. Calls that never reached a person (busy, invalid number, provider error) are not sent: there is
 * nothing to read. Whatever the model answers is held to the same contract as the rule-based analyser
 * (`normalizeAnalysis`). Errors throw `AnalysisError`; the call engine's last attempt falls back to the rules.
 */
export function createLlmAnalyzer(options: LlmAnalyzerOptions): CallAnalyzer {
  const client = new OpenAI({
    baseURL: chatCompletionsBaseUrl(options.url),
    // The endpoint may need no key (a self-hosted model); the package insists on a string.
    apiKey: options.apiKey ?? "unused",
    timeout: options.timeoutMs ?? 60_000,
    // The call engine retries the whole analysis step with backoff; no second retry loop here.
    maxRetries: 0,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.apiKey ? {} : { defaultHeaders: { authorization: null } }),
  });
  return {
    kind: "llm",
    async analyze(input: AnalysisInput): Promise<AnalysisResult> {
      if (input.disposition !== "answered" && input.disposition !== "voicemail") return analyzeWithRules(input);
      const allowed = allowedResultTypes(input);
      const schema = analysisOutputSchema(input, allowed);
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
      let parsed: z.infer<typeof schema> | null;
      try {
        const completion = await client.chat.completions.parse({
          model: options.model,
          temperature: 0,
          response_format: zodResponseFormat(schema, "call_analysis"),
          messages: [
            { role: "system", content: SYSTEM_PROMPT },
            { role: "user", content: JSON.stringify(userContent) },
          ],
        });
        const message = completion.choices[0]?.message;
        if (message?.refusal) throw new AnalysisError(`the model refused: ${message.refusal.slice(0, 200)}`);
        parsed = message?.parsed ?? null;
      } catch (error) {
        if (error instanceof AnalysisError) throw error;
        if (error instanceof OpenAI.APIError) throw new AnalysisError(`analysis endpoint answered ${error.status ?? "without a status"}: ${error.message.slice(0, 200)}`, { cause: error });
        throw new AnalysisError(`the model's answer is not the expected JSON object (${error instanceof Error ? error.message.slice(0, 200) : String(error)})`, { cause: error });
      }
      if (!parsed) throw new AnalysisError("the model's answer is not the expected JSON object (empty)");
      const toAction = (item: z.infer<typeof ZActionOut>) => ({
        description: item.description,
        actionKey: item.actionKey,
        status: "completed",
        completedAt: input.endedAt.toISOString(),
        metadata: {},
      });
      return normalizeAnalysis(
        {
          resultType: parsed.resultType,
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
