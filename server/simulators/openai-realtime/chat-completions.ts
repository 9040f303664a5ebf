import { analyzeWithRules } from "@/server/analysis/rule-based";
import type { AnalysisInput } from "@/server/analysis/types";

type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema>; required?: string[]; additionalProperties?: boolean; items?: JsonSchema; enum?: unknown[]; anyOf?: JsonSchema[] };

export type ChatCompletionRequest = {
  model?: string;
  messages?: Array<{ role: string; content: string }>;
  response_format?: { type: string; json_schema?: { name?: string; strict?: boolean; schema?: JsonSchema } };
  temperature?: number;
};

/** The analyser's user message (server/analysis/llm.ts), as far as the simulator reads it. */
type AnalysisRequestBody = {
  allowedResultTypes?: string[];
  transcript?: string;
  durationSeconds?: number;
  callEndedAt?: string;
  agentName?: string;
  contact?: { name?: string; timezone?: string; variables?: Record<string, string> };
  extractionVariables?: Array<Record<string, unknown>>;
  outcomeDefinitions?: Array<{ name: string; description: string }>;
  meetingBooked?: AnalysisInput["meeting"];
};

export class ChatRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The stand-in "model" of the chat-completions simulator: it reads the analyser's request (the transcript, the
 * allowed result types, the agent's definitions), judges the conversation with the rule-based reading of the
 * transcript, and answers as OpenAI's structured outputs do — one JSON object that conforms to the strict JSON
 * schema it was sent (the enum of result types, exactly the listed variable keys, the outcome names). Requests
 * without a strict `json_schema` response format are refused, like a model that does not support them would be.
 */
export function answerAnalysisRequest(body: ChatCompletionRequest): Record<string, unknown> {
  const format = body.response_format;
  if (format?.type !== "json_schema" || !format.json_schema?.schema || format.json_schema.strict !== true) {
    throw new ChatRequestError(400, "This simulator only answers structured-output requests (response_format json_schema, strict).");
  }
  const schema = format.json_schema.schema;
  assertStrict(schema, "schema");
  const user = body.messages?.find((message) => message.role === "user");
  let request: AnalysisRequestBody;
  try {
    request = JSON.parse(user?.content ?? "");
  } catch {
    throw new ChatRequestError(400, "The user message must be the analysis request as JSON.");
  }
  const input: AnalysisInput = {
    callId: "chat-simulator",
    disposition: request.allowedResultTypes?.length === 1 && request.allowedResultTypes[0] === "Voicemail" ? "voicemail" : "answered",
    transcript: String(request.transcript ?? ""),
    durationSeconds: Number(request.durationSeconds ?? 0),
    endedAt: new Date(String(request.callEndedAt ?? new Date().toISOString())),
    agent: { name: String(request.agentName ?? "Agent") },
    contact: { name: String(request.contact?.name ?? ""), timezone: String(request.contact?.timezone ?? "UTC"), variables: request.contact?.variables ?? {} },
    extractionDefinitions: (request.extractionVariables ?? []).map((variable) => ({
      slug: String(variable.slug),
      displayName: String(variable.displayName ?? variable.slug),
      description: String(variable.description ?? ""),
      type: String(variable.type ?? "STRING"),
      dropdownOptions: (variable.dropdownOptions as string[] | undefined) ?? null,
      datetimeFormat: null,
      formatDatetimeInUtc: null,
    })),
    outcomeDefinitions: request.outcomeDefinitions ?? [],
    meeting: request.meetingBooked ?? null,
    errorMessage: null,
  };
  const judged = analyzeWithRules(input);
  const props = schema.properties ?? {};
  const allowed = (props.resultType?.enum ?? []) as string[];
  const variables: Record<string, unknown> = {};
  for (const slug of Object.keys(props.extractedVariables?.properties ?? {})) {
    const value = judged.extractedVariables[slug];
    // DATE/TIME values are asked for as ISO 8601 with an offset.
    variables[slug] = value === undefined ? null : value;
  }
  const outcomeNames = (props.outcomes?.items?.properties?.name?.enum as string[] | undefined) ?? null;
  const action = (item: { description: string; actionKey: string }) => ({ description: item.description, actionKey: item.actionKey });
  const answer = {
    resultType: allowed.includes(judged.resultType) ? judged.resultType : allowed[0],
    summary: judged.summary,
    extractedVariables: variables,
    outcomes: judged.outcomes.filter((outcome) => !outcomeNames || outcomeNames.includes(outcome.name)),
    agentActions: judged.agentActions.map(action),
    humanActions: judged.humanActions.map(action),
  };
  return {
    id: `chatcmpl-${Date.now().toString(36)}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? "simulated",
    choices: [{ index: 0, message: { role: "assistant", content: JSON.stringify(answer), refusal: null }, finish_reason: "stop", logprobs: null }],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  };
}

/** Strict structured outputs: every object lists all its properties as required and forbids others. */
function assertStrict(schema: JsonSchema, path: string) {
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.includes("object")) {
    const keys = Object.keys(schema.properties ?? {});
    if (schema.additionalProperties !== false) throw new ChatRequestError(400, `Invalid schema: ${path} must set additionalProperties: false.`);
    const missing = keys.filter((key) => !(schema.required ?? []).includes(key));
    if (missing.length) throw new ChatRequestError(400, `Invalid schema: ${path} must list every property as required (missing ${missing.join(", ")}).`);
    for (const key of keys) assertStrict(schema.properties![key]!, `${path}.${key}`);
  }
  if (schema.items) assertStrict(schema.items, `${path}[]`);
  for (const option of schema.anyOf ?? []) assertStrict(option, path);
}
