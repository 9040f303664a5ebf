import { getDb } from "@/db";
import { inngest } from "@/inngest/client";
import { callEnded } from "@/inngest/events";
import { getConfig } from "@/server/config/env";
import { appPort } from "@/server/config/settings";
import { createSimulatorProcessEngine, type SimulatorProcessEngine } from "@/server/voice/simulator/process-engine";
import { createSimulatedVoiceEngine } from "@/server/voice/simulator/simulator";
import { voiceEventsSecret } from "@/server/voice/signature";
import { createFetchTransport } from "@/server/voice/transport";
import { getListenHub } from "@/server/voice/listen";
import { createTwilioRealtimeEngine, type TwilioRealtimeEngine } from "@/server/voice/twilio-realtime/engine";
import { readTwilioRealtimeSettings } from "@/server/voice/twilio-realtime/settings";
import type { VoiceEngine } from "@/server/voice/types";
import { processSingleton } from "@/server/runtime/process-singleton";

const registry = () => processSingleton("voiceEngine", () => ({ engine: undefined as VoiceEngine | undefined }));

/**
 * The app's simulator gathers live transcript lines for a second per event: the Live calls page still follows the
 * call, and a campaign's conversations post a few events each instead of one per spoken turn.
 */
const SIMULATOR_TRANSCRIPT_BATCH_MS = 1000;

/** Where the simulator posts its events: this server's own entry point (loopback), unless configured. */
export function simulatorEventsUrl(): string {
  return getConfig().SIMULATOR_EVENTS_URL ?? `http://127.0.0.1:${appPort()}/api/voice/events`;
}

/**
 * The process's voice engine. `VOICE_ENGINE=simulator` (the default) is the deterministic simulator;
 * `twilio-realtime` dials through Twilio and talks through OpenAI Realtime (docs/voice-twilio.md). Process-wide
 * (server/runtime/process-singleton.ts): Next.js may load this module once for instrumentation and once per route
 * bundle, and all of them must share one engine (its call state, its live conversations).
 */
export function getVoiceEngine(): VoiceEngine {
  const current = registry();
  if (!current.engine) {
    const config = getConfig();
    current.engine =
      config.VOICE_ENGINE === "twilio-realtime"
        ? createTwilioRealtimeEngine({
            settings: readTwilioRealtimeSettings(config.raw),
            getDb,
            listenHub: getListenHub,
            // One run per call: a repeated announcement of an event that did arrive is dropped by its ID.
            announceCallEnded: async (callId) => void (await inngest.send(callEnded.create({ callId }, { id: `call-ended:${callId}` }))),
          })
        : config.VOICE_SIMULATOR_PROCESS === "separate"
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
  }
  return current.engine;
}

/** The real engine when it is the configured one (its callbacks and media stream need it), else null. */
export function getTwilioRealtimeEngine(): TwilioRealtimeEngine | null {
  const engine = getVoiceEngine();
  return engine.kind === "twilio-realtime" ? (engine as TwilioRealtimeEngine) : null;
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
  if (engine.kind === "twilio-realtime") {
    const twilio = engine as TwilioRealtimeEngine;
    return { engine, endCallsInTheAir: (budgetMs) => twilio.endLiveCalls(budgetMs) };
  }
  if (!isSimulatorProcessEngine(engine)) return { engine };
  await engine.ready();
  return { engine, stop: (budgetMs) => engine.stop(budgetMs), endCallsInTheAir: () => engine.hangUpAll() };
}

function isSimulatorProcessEngine(engine: VoiceEngine): engine is SimulatorProcessEngine {
  return "stop" in engine && "pid" in engine;
}

export type { VoiceEngine } from "@/server/voice/types";
