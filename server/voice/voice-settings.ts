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

/**
 * How fast the simulator's live calls run in wall time (`realtime` pace): `VOICE_SIMULATOR_MS_PER_SECOND` wall
 * milliseconds per simulated second (default 12: a 7-minute call in ~5 s) and at most
 * `VOICE_SIMULATOR_MAX_CONVERSATION_MS` per conversation (default 8,000). Slower values let a person (or an e2e test)
 * follow a call on the Live calls page and hang it up.
 */
export function simulatorPace(env: Record<string, string | undefined> = process.env): { msPerSimulatedSecond?: number; maxConversationMs?: number } {
  const read = (name: string, max: number) => {
    const raw = env[name]?.trim();
    if (!raw) return undefined;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1 || value > max) throw new Error(`${name}=${raw} must be a whole number from 1 to ${max}.`);
    return value;
  };
  return { msPerSimulatedSecond: read("VOICE_SIMULATOR_MS_PER_SECOND", 1000), maxConversationMs: read("VOICE_SIMULATOR_MAX_CONVERSATION_MS", 600_000) };
}
