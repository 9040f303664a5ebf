import type { VoiceEngine } from "@/server/voice/types";
import type { CarrierEngine, CarrierEngineHandles } from "./engine-types";
import type { CarrierName } from "./registry";
import { simulatorEngine } from "./simulator/engine";
import { twilioRealtimeEngine } from "./twilio-realtime/engine";

/**
 * How each carrier's engine is made and run, keyed like the registry (./registry.ts; the type makes a new carrier
 * name here too). Heavy imports (the engines themselves), so only server/voice/index.ts imports this file.
 */
const ENGINES: Record<CarrierName, CarrierEngine> = {
  simulator: simulatorEngine,
  "twilio-realtime": twilioRealtimeEngine,
};

/** Makes the engine of the carrier named (`VOICE_ENGINE`). */
export function createCarrierEngine(name: CarrierName): VoiceEngine {
  return ENGINES[name].create();
}

/** The engine's start/stop and carrier-specific entry points; none for an engine no carrier made (a test's double). */
export function carrierEngineHandles(engine: VoiceEngine): CarrierEngineHandles {
  return Object.hasOwn(ENGINES, engine.kind) ? ENGINES[engine.kind as CarrierName].handles(engine) : {};
}

export { simulatorEventsUrl } from "./simulator/engine";
