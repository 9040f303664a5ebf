import { readTwilioRealtimeSettings } from "./twilio-realtime/settings";

export const VOICE_ENGINES = ["simulator", "twilio-realtime"] as const;
export type VoiceEngineKind = (typeof VOICE_ENGINES)[number];

/** `VOICE_ENGINE` (default `simulator`); throws on an unknown value. */
export function voiceEngineKind(env: Readonly<Record<string, string | undefined>>): VoiceEngineKind {
  const kind = env.VOICE_ENGINE?.trim() || "simulator";
  if (!(VOICE_ENGINES as readonly string[]).includes(kind)) throw new Error(`VOICE_ENGINE=${kind} is unknown; use one of ${VOICE_ENGINES.join(", ")}.`);
  return kind as VoiceEngineKind;
}

/**
 * Checks the voice engine's settings without starting anything (no side-effecting imports). The configuration module
 * applies the same rules at start (server/config/env.ts), so a misconfigured real engine stops the start.
 */
export function validateVoiceSettings(env: Readonly<Record<string, string | undefined>>): void {
  if (voiceEngineKind(env) === "twilio-realtime") readTwilioRealtimeSettings(env);
}
