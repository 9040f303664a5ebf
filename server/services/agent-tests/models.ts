import OpenAI from "openai";
import { getConfig } from "@/server/config/env";
import { ensureEmbeddedOpenAiSimulator } from "@/server/simulators/openai-realtime/embedded";
import { DEFAULT_REALTIME_MODEL } from "@/server/voice/twilio-realtime/settings";
import { processSingleton } from "@/server/runtime/process-singleton";

const OPENAI_API_BASE_URL = "https://api.openai.com/v1";

/** Where agent tests talk to models: OpenAI (or `OPENAI_BASE_URL`) with `OPENAI_API_KEY`, else the embedded simulator. */
export type TestModels = {
  embedded: boolean;
  client: OpenAI;
  agentModel: string;
  callerModel: string;
  judgeModel: string;
  realtime: { apiKey: string; model: string; realtimeUrl: string };
};

/** Process-wide (server/runtime/process-singleton.ts); forgotten when resolving fails or a test resets it. */
const cache = () => processSingleton("agentTestModels", () => ({ models: undefined as Promise<TestModels> | undefined }));

function realtimeUrlOf(baseUrl: string, model: string, extra: Record<string, string> = {}): string {
  const url = new URL(`${baseUrl.replace(/\/+$/, "")}/realtime`);
  url.protocol = url.protocol === "http:" ? "ws:" : "wss:";
  url.searchParams.set("model", model);
  for (const [key, value] of Object.entries(extra)) url.searchParams.set(key, value);
  return url.toString();
}

/**
 * The models of this process's agent tests, resolved once. Embedded (no `OPENAI_API_KEY`): the in-process OpenAI
 * simulator answers the agent, the caller and the judge by rules, and its Realtime endpoint runs browser test calls
 * with its test-call script (`sim_script=test-call`).
 */
export function getTestModels(): Promise<TestModels> {
  const resolved = cache();
  resolved.models ??= resolveTestModels().catch((error: unknown) => {
    resolved.models = undefined;
    throw error;
  });
  return resolved.models;
}

/** Forget the resolved models (tests that switch settings). */
export function resetTestModels(): void {
  cache().models = undefined;
}

async function resolveTestModels(): Promise<TestModels> {
  const config = getConfig();
  if (config.OPENAI_API_KEY) {
    const baseURL = config.OPENAI_BASE_URL ?? OPENAI_API_BASE_URL;
    return {
      embedded: false,
      client: new OpenAI({ apiKey: config.OPENAI_API_KEY, baseURL, timeout: 60_000, maxRetries: 2 }),
      agentModel: config.AGENT_TEST_MODEL,
      callerModel: config.AGENT_TEST_CALLER_MODEL,
      judgeModel: config.AGENT_TEST_MODEL,
      realtime: { apiKey: config.OPENAI_API_KEY, model: config.REALTIME_MODEL, realtimeUrl: realtimeUrlOf(baseURL, config.REALTIME_MODEL) },
    };
  }
  const simulator = await ensureEmbeddedOpenAiSimulator();
  return {
    embedded: true,
    client: new OpenAI({ apiKey: simulator.apiKey, baseURL: simulator.baseUrl, timeout: 30_000, maxRetries: 0 }),
    agentModel: "simulated-agent",
    callerModel: "simulated-caller",
    judgeModel: "simulated-judge",
    realtime: { apiKey: simulator.apiKey, model: DEFAULT_REALTIME_MODEL, realtimeUrl: realtimeUrlOf(simulator.baseUrl, DEFAULT_REALTIME_MODEL, { sim_script: "test-call" }) },
  };
}
