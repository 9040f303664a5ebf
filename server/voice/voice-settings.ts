import { CARRIER_NAMES, configuredCarrierName, voiceCarrier, type CarrierName } from "@/server/carriers/registry";

/** The voice engines: the carriers' names (server/carriers/registry.ts). */
export const VOICE_ENGINES = CARRIER_NAMES;
export type VoiceEngineKind = CarrierName;

/** `VOICE_ENGINE` (default `simulator`); throws on an unknown value. */
export function voiceEngineKind(env: Readonly<Record<string, string | undefined>>): VoiceEngineKind {
  return configuredCarrierName(env);
}

/**
 * Checks the voice engine's settings without starting anything (no side-effecting imports). The configuration module
 * applies the same rules at start (server/config/env.ts), so a misconfigured real engine stops the start.
 */
export function validateVoiceSettings(env: Readonly<Record<string, string | undefined>>): void {
  voiceCarrier(voiceEngineKind(env)).readSettings(env);
}
