import { getDb } from "@/db";
import { inngest } from "@/inngest/client";
import { callEnded } from "@/inngest/events";
import { getConfig } from "@/server/config/env";
import { appPort } from "@/server/config/settings";
import { createSimulatedVoiceEngine } from "@/server/voice/simulator/simulator";
import { createFetchTransport } from "@/server/voice/transport";
import { createTwilioRealtimeEngine, type TwilioRealtimeEngine } from "@/server/voice/twilio-realtime/engine";
import { readTwilioRealtimeSettings } from "@/server/voice/twilio-realtime/settings";
import type { VoiceEngine } from "@/server/voice/types";

const registry = globalThis as unknown as { __voiceEngine?: VoiceEngine };

/** Where the simulator posts its events: this server's own entry point (loopback), unless configured. */
export function simulatorEventsUrl(): string {
  return getConfig().SIMULATOR_EVENTS_URL ?? `http://127.0.0.1:${appPort()}/api/voice/events`;
}

/**
 * The process's voice engine. `VOICE_ENGINE=simulator` (the default) is the deterministic simulator;
 * `twilio-realtime` dials through Twilio and talks through OpenAI Realtime (docs/voice-twilio.md). Kept on
 * globalThis: Next.js may load this module once for instrumentation and once per route bundle, and all of them must
 * share one engine (its call state, its live conversations).
 */
export function getVoiceEngine(): VoiceEngine {
  if (!registry.__voiceEngine) {
    const config = getConfig();
    registry.__voiceEngine =
      config.VOICE_ENGINE === "twilio-realtime"
        ? createTwilioRealtimeEngine({
            settings: readTwilioRealtimeSettings(config.raw),
            getDb,
            // One run per call: a repeated announcement of an event that did arrive is dropped by its ID.
            announceCallEnded: async (callId) => void (await inngest.send(callEnded.create({ callId }, { id: `call-ended:${callId}` }))),
          })
        : createSimulatedVoiceEngine({
            transport: createFetchTransport({ url: simulatorEventsUrl() }),
            msPerSimulatedSecond: config.VOICE_SIMULATOR_MS_PER_SECOND,
            maxConversationMs: config.VOICE_SIMULATOR_MAX_CONVERSATION_MS,
            // Recordings by URL, as a real provider sends them: the entry point downloads them from the simulator's host.
            recordings: "url",
            // Live transcript lines gathered for a second per event: the Live calls page still follows the call, and a
            // campaign's conversations post a few events each instead of one per spoken turn.
            transcriptBatchMs: 1000,
          });
  }
  return registry.__voiceEngine;
}

/** The real engine when it is the configured one (its callbacks and media stream need it), else null. */
export function getTwilioRealtimeEngine(): TwilioRealtimeEngine | null {
  const engine = getVoiceEngine();
  return engine.kind === "twilio-realtime" ? (engine as TwilioRealtimeEngine) : null;
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
