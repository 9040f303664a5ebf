import { getConfig } from "@/server/config/env";
import { appPort } from "@/server/config/settings";
import { createSimulatorProcessEngine, type SimulatorProcessEngine } from "@/server/voice/simulator/process-engine";
import { createSimulatedVoiceEngine } from "@/server/voice/simulator/simulator";
import { voiceEventsSecret } from "@/server/voice/signature";
import { createFetchTransport } from "@/server/voice/transport";
import type { VoiceEngine } from "@/server/voice/types";
import type { CarrierEngine } from "../engine-types";

/**
 * The app's simulator gathers live transcript lines for a second per event: the Live calls page still follows the
 * call, and a campaign's conversations post a few events each instead of one per spoken turn.
 */
const SIMULATOR_TRANSCRIPT_BATCH_MS = 1000;

/** Where the simulator posts its events: this server's own entry point (loopback), unless configured. */
export function simulatorEventsUrl(): string {
  return getConfig().SIMULATOR_EVENTS_URL ?? `http://127.0.0.1:${appPort()}/api/voice/events`;
}

export const simulatorEngine: CarrierEngine = {
  create: () => {
    const config = getConfig();
    return config.VOICE_SIMULATOR_PROCESS === "separate"
      ? // Its own process, as a provider is: its conversations and event posts cost this event loop nothing.
        createSimulatorProcessEngine({
          eventsUrl: simulatorEventsUrl(),
          secret: voiceEventsSecret(),
          msPerSimulatedSecond: config.VOICE_SIMULATOR_MS_PER_SECOND,
          maxConversationMs: config.VOICE_SIMULATOR_MAX_CONVERSATION_MS,
          transcriptBatchMs: SIMULATOR_TRANSCRIPT_BATCH_MS,
        })
      : createSimulatedVoiceEngine({
          transport: createFetchTransport({ url: simulatorEventsUrl() }),
          msPerSimulatedSecond: config.VOICE_SIMULATOR_MS_PER_SECOND,
          maxConversationMs: config.VOICE_SIMULATOR_MAX_CONVERSATION_MS,
          // Recordings by URL, as a real provider sends them: the entry point downloads them from the simulator's host.
          recordings: "url",
          transcriptBatchMs: SIMULATOR_TRANSCRIPT_BATCH_MS,
        });
  },
  handles: (engine) =>
    isSimulatorProcessEngine(engine)
      ? { ready: () => engine.ready(), stop: (budgetMs) => engine.stop(budgetMs), endCallsInTheAir: () => engine.hangUpAll() }
      : {},
};

function isSimulatorProcessEngine(engine: VoiceEngine): engine is SimulatorProcessEngine {
  return "stop" in engine && "pid" in engine;
}
