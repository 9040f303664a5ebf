import { randomBytes } from "node:crypto";
import { startOpenAiSimulator, type OpenAiSimulator } from "./server";
import { processSingleton } from "@/server/runtime/process-singleton";

/** Process-wide (server/runtime/process-singleton.ts); forgotten when it stops or fails to start. */
const cache = () => processSingleton("openAiSimulator", () => ({ running: undefined as Promise<OpenAiSimulator> | undefined }));

/**
 * Embedded mode (no `OPENAI_API_KEY`): this process's own OpenAI simulator on loopback, started at its first use
 * (a browser test call, a test run) with a random key, and kept for the life of the process. Agent tests talk to it
 * through the same official packages they use against OpenAI.
 */
export function ensureEmbeddedOpenAiSimulator(): Promise<OpenAiSimulator> {
  const embedded = cache();
  embedded.running ??= startOpenAiSimulator({ apiKey: `sk-embedded-${randomBytes(12).toString("hex")}`, unref: true }).catch((error: unknown) => {
    embedded.running = undefined;
    throw error;
  });
  return embedded.running;
}

/** Stops this process's embedded simulator, if it was started (tests, benchmarks). */
export async function stopEmbeddedOpenAiSimulator(): Promise<void> {
  const embedded = cache();
  const running = embedded.running;
  embedded.running = undefined;
  if (running) await (await running).stop();
}
