import { readTwilioRealtimeSettings } from "./twilio-realtime/settings";

export const VOICE_ENGINES = ["simulator", "twilio-realtime"] as const;
export type VoiceEngineKind = (typeof VOICE_ENGINES)[number];

/** `VOICE_ENGINE` (default `simulator`); throws on an unknown value. */
export function voiceEngineKind(env: Record<string, string | undefined> = process.env): VoiceEngineKind {
  const kind = env.VOICE_ENGINE?.trim() || "simulator";
  if (!(VOICE_ENGINES as readonly string[]).includes(kind)) throw new Error(`VOICE_ENGINE=${kind} is unknown; use one of ${VOICE_ENGINES.join(", ")}.`);
  return kind as VoiceEngineKind;
}

/**
 * Checks the voice engine's settings without starting anything (no side-effecting imports): `npm start` calls it
 * first, so a misconfigured real engine stops the start with a message naming what is missing.
 */
export function validateVoiceSettings(env: Record<string, string | undefined> = process.env): void {
  if (voiceEngineKind(env) === "twilio-realtime") readTwilioRealtimeSettings(env);
}
