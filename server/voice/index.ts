import { carrierEngineHandles, createCarrierEngine, simulatorEventsUrl } from "@/server/carriers/engines";
import { getConfig } from "@/server/config/env";
import type { TwilioRealtimeEngine } from "@/server/voice/twilio-realtime/engine";
import type { VoiceEngine } from "@/server/voice/types";
import { processSingleton } from "@/server/runtime/process-singleton";

const registry = () => processSingleton("voiceEngine", () => ({ engine: undefined as VoiceEngine | undefined }));

export { simulatorEventsUrl };

/**
 * The process's voice engine, made by the carrier `VOICE_ENGINE` names (server/carriers/: `simulator`, the default,
 * is the deterministic simulator; `twilio-realtime` dials through Twilio and talks through OpenAI Realtime,
 * docs/voice-twilio.md). Process-wide (server/runtime/process-singleton.ts): Next.js may load this module once for
 * instrumentation and once per route bundle, and all of them must share one engine (its call state, its live
 * conversations).
 */
export function getVoiceEngine(): VoiceEngine {
  const current = registry();
  current.engine ??= createCarrierEngine(getConfig().VOICE_ENGINE);
  return current.engine;
}

/** The Twilio engine's own entry points (callbacks, inbound webhook, media stream) when its carrier runs here, else null. */
export function getTwilioRealtimeEngine(): TwilioRealtimeEngine | null {
  return carrierEngineHandles(getVoiceEngine()).twilioRealtime ?? null;
}

/** Replaces the process's voice engine (tests; a production adapter at startup). */
export function setVoiceEngine(engine: VoiceEngine | undefined): void {
  registry().engine = engine;
}

/**
 * Called by the embedded services at server start: creates the engine now so a misconfiguration fails early, and
 * waits for the simulator's process when it has one. `stop` (the simulator's process) is for the shutdown.
 */
export async function startVoiceEngine(): Promise<{
  engine: VoiceEngine;
  stop?: (budgetMs: number) => Promise<void>;
  /** Ends this instance's calls in the air and waits until they are reported (the shutdown's `calls` stage). */
  endCallsInTheAir?: (budgetMs: number) => Promise<number>;
}> {
  const engine = getVoiceEngine();
  const { ready, stop, endCallsInTheAir } = carrierEngineHandles(engine);
  await ready?.();
  return { engine, stop, endCallsInTheAir };
}

export type { VoiceEngine } from "@/server/voice/types";
