import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { getConfig } from "@/server/config/env";
import { mayGenerateSecrets } from "@/server/config/settings";
import { processSingleton } from "@/server/runtime/process-singleton";

export const VOICE_SIGNATURE_HEADER = "x-voice-signature";
export const VOICE_TIMESTAMP_HEADER = "x-voice-timestamp";
/** Signed requests older (or newer) than this are refused, so a captured request cannot be replayed later. */
export const VOICE_SIGNATURE_TOLERANCE_SECONDS = 300;

const cache = () => processSingleton("voiceEventsSecret", () => ({ current: undefined as { source: string; value: Buffer } | undefined }));

/**
 * The secret shared with the voice provider (the simulator in embedded mode): `VOICE_EVENTS_SECRET`; else derived
 * from `APP_SECRET`; else, outside production, a random per-process secret (the simulator and the entry point then
 * live in the same process). Process-wide (server/runtime/process-singleton.ts) because Next.js may load this module more than once per process.
 */
export function voiceEventsSecret(): Buffer {
  const { VOICE_EVENTS_SECRET: explicit, APP_SECRET: appSecret } = getConfig();
  const source = explicit ? `voice:${explicit}` : appSecret ? `app:${appSecret}` : "process";
  const secret = cache();
  if (secret.current?.source === source) return secret.current.value;
  let value: Buffer;
  if (explicit) value = Buffer.from(explicit, "utf8");
  else if (appSecret) value = createHmac("sha256", appSecret).update("voice-provider-events:v1").digest();
  else if (mayGenerateSecrets()) value = randomBytes(32);
  else throw new Error("VOICE_EVENTS_SECRET (or APP_SECRET) must be set to verify voice provider events.");
  secret.current = { source, value };
  return value;
}

function macOf(timestamp: string, body: string, secret: Buffer): string {
  return createHmac("sha256", secret).update(`voice:v1\n${timestamp}\n${body}`).digest("base64url");
}

/** Headers a provider sends with an event body: the timestamp and `v1=<HMAC-SHA256 over "voice:v1\n<ts>\n<body>">`. */
export function signVoiceEvent(body: string, options: { now?: Date; secret?: Buffer } = {}): Record<string, string> {
  const timestamp = String(Math.floor((options.now ?? new Date()).getTime() / 1000));
  return {
    [VOICE_TIMESTAMP_HEADER]: timestamp,
    [VOICE_SIGNATURE_HEADER]: `v1=${macOf(timestamp, body, options.secret ?? voiceEventsSecret())}`,
  };
}

/** True when the signature matches the body and the timestamp is within the tolerance. Constant-time compare. */
export function verifyVoiceEvent(
  body: string,
  headers: Pick<Headers, "get">,
  options: { now?: Date; secret?: Buffer } = {},
): boolean {
  const timestamp = headers.get(VOICE_TIMESTAMP_HEADER) ?? "";
  const signature = headers.get(VOICE_SIGNATURE_HEADER) ?? "";
  if (!/^\d{1,12}$/.test(timestamp)) return false;
  const age = Math.abs((options.now ?? new Date()).getTime() / 1000 - Number(timestamp));
  if (age > VOICE_SIGNATURE_TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(`v1=${macOf(timestamp, body, options.secret ?? voiceEventsSecret())}`);
  // A header may carry several space-separated signatures (secret rotation); any valid one passes.
  return signature.split(" ").some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
