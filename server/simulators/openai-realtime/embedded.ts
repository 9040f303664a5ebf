import { randomBytes } from "node:crypto";
import { startOpenAiSimulator, type OpenAiSimulator } from "./server";

const cache = globalThis as unknown as { __openAiSimulator?: Promise<OpenAiSimulator> };

/**
 * Embedded mode (no `OPENAI_API_KEY`): this process's own OpenAI simulator on loopback, started at its first use
 * (a browser test call, a test run) with a random key, and kept for the life of the process. Agent tests talk to it
 * through the same official packages they use against OpenAI.
 */
export function ensureEmbeddedOpenAiSimulator(): Promise<OpenAiSimulator> {
  cache.__openAiSimulator ??= startOpenAiSimulator({ apiKey: `sk-embedded-${randomBytes(12).toString("hex")}`, unref: true }).catch((error: unknown) => {
    cache.__openAiSimulator = undefined;
    throw error;
  });
  return cache.__openAiSimulator;
}

/** Stops this process's embedded simulator, if it was started (tests, benchmarks). */
export async function stopEmbeddedOpenAiSimulator(): Promise<void> {
  const running = cache.__openAiSimulator;
  cache.__openAiSimulator = undefined;
  if (running) await (await running).stop();
}
