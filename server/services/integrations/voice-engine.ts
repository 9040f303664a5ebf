import { getConfig } from "@/server/config/env";
import type { VoiceEngineKind } from "@/server/voice/voice-settings";

export type VoiceEngineSummary = {
  engine: VoiceEngineKind;
  /** Non-secret facts about the engine, as label/value pairs. */
  facts: Array<{ label: string; value: string }>;
};

/** The voice engine this instance runs (`VOICE_ENGINE`), with its non-secret settings only: no tokens, keys or SIDs. */
export function voiceEngineSummary(): VoiceEngineSummary {
  const config = getConfig();
  if (config.VOICE_ENGINE === "twilio-realtime") {
    return {
      engine: "twilio-realtime",
      facts: [
        { label: "Phone calls", value: "Twilio" },
        { label: "Conversation model", value: `OpenAI Realtime (${config.REALTIME_MODEL})` },
        { label: "Public address Twilio calls back", value: config.PUBLIC_BASE_URL ?? "not set" },
      ],
    };
  }
  return {
    engine: "simulator",
    facts: [
      { label: "Phone calls", value: "Simulated: no real phone is dialled" },
      { label: "Outcome", value: "Chosen by the last digit of the number called" },
    ],
  };
}
