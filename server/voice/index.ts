import { appPort } from "@/server/config/settings";
import { createSimulatedVoiceEngine } from "@/server/voice/simulator/simulator";
import { createFetchTransport } from "@/server/voice/transport";
import type { VoiceEngine } from "@/server/voice/types";

const registry = globalThis as unknown as { __voiceEngine?: VoiceEngine };

/** Where the simulator posts its events: this server's own entry point (loopback), unless configured. */
export function simulatorEventsUrl(): string {
  return process.env.SIMULATOR_EVENTS_URL ?? `http://127.0.0.1:${appPort()}/api/voice/events`;
}

/**
 * The process's voice engine. `VOICE_ENGINE=simulator` (the default) is the deterministic simulator; a real
 * provider adapter registers itself here under its own name. Kept on globalThis: Next.js may load this module
 * once for instrumentation and once per route bundle, and all of them must share one engine (its call state).
 */
export function getVoiceEngine(): VoiceEngine {
  if (!registry.__voiceEngine) {
    const kind = process.env.VOICE_ENGINE ?? "simulator";
    if (kind !== "simulator") throw new Error(`VOICE_ENGINE=${kind} is not available in this build (only "simulator").`);
    registry.__voiceEngine = createSimulatedVoiceEngine({ transport: createFetchTransport({ url: simulatorEventsUrl() }) });
  }
  return registry.__voiceEngine;
}

/** Replaces the process's voice engine (tests; a production adapter at startup). */
export function setVoiceEngine(engine: VoiceEngine | undefined): void {
  registry.__voiceEngine = engine;
}

/** Called by the embedded services at server start: creates the engine now so a misconfiguration fails early. */
export function startVoiceEngine(): VoiceEngine {
  return getVoiceEngine();
}

export type { VoiceEngine } from "@/server/voice/types";
