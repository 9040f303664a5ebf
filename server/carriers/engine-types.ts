import type { TwilioRealtimeEngine } from "@/server/voice/twilio-realtime/engine";
import type { VoiceEngine } from "@/server/voice/types";

/** What the process does with an engine beyond `VoiceEngine`: its start, its shutdown, its carrier's own entry points. */
export type CarrierEngineHandles = {
  /** Waits until the engine can place calls (the simulator's own process). */
  ready?: () => Promise<void>;
  /** Stops what the engine started (the simulator's process), at the shutdown's `services` stage. */
  stop?: (budgetMs: number) => Promise<void>;
  /** Ends this instance's calls in the air and waits until they are reported (the shutdown's `calls` stage). */
  endCallsInTheAir?: (budgetMs: number) => Promise<number>;
  /** Twilio's callbacks, inbound webhook and media stream (app/api/carriers/[carrier]/[...path] and the aliases app/api/voice/twilio, app/api/twilio/voice; app-upgrades.ts). */
  twilioRealtime?: TwilioRealtimeEngine;
};

export type CarrierEngine = {
  /** Makes the process's engine from the configuration (server/voice/index.ts keeps it, once per process). */
  create(): VoiceEngine;
  /** The handles of an engine of this carrier (one it made, or one a test set). */
  handles(engine: VoiceEngine): CarrierEngineHandles;
};
