import { voiceCarrier } from "@/server/carriers/registry";
import { getConfig } from "@/server/config/env";
import type { VoiceEngineKind } from "@/server/voice/voice-settings";

export type VoiceEngineSummary = {
  engine: VoiceEngineKind;
  /** Non-secret facts about the engine, as label/value pairs. */
  facts: Array<{ label: string; value: string }>;
};

/** The voice engine this instance runs (`VOICE_ENGINE`), with its non-secret settings only: no tokens, keys or SIDs (its carrier's `facts`). */
export function voiceEngineSummary(): VoiceEngineSummary {
  const config = getConfig();
  return { engine: config.VOICE_ENGINE, facts: voiceCarrier(config.VOICE_ENGINE).facts(config) };
}
