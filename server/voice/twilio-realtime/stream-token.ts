import { createHmac, timingSafeEqual } from "node:crypto";

/** How long the token in a call's TwiML stays valid: the stream connects right after Twilio fetched it. */
export const STREAM_TOKEN_TTL_SECONDS = 300;

function keyFrom(authToken: string): Buffer {
  return createHmac("sha256", authToken).update("twilio-media-stream-token:v1").digest();
}

function macOf(key: Buffer, callId: string, expires: number): string {
  return createHmac("sha256", key).update(`${callId}\n${expires}`).digest("base64url");
}

/**
 * The per-call token our TwiML hands to `<Stream>` as a parameter: `<callId>.<expiry unix s>.<HMAC>`. The media
 * WebSocket trusts nothing until the `start` message carries a valid, unexpired token, and then only for that call.
 */
export function createStreamToken(params: { callId: string; authToken: string; now: Date; ttlSeconds?: number }): string {
  const expires = Math.floor(params.now.getTime() / 1000) + (params.ttlSeconds ?? STREAM_TOKEN_TTL_SECONDS);
  return `${params.callId}.${expires}.${macOf(keyFrom(params.authToken), params.callId, expires)}`;
}

/** The call ID the token was issued for, or null when it is malformed, forged or expired. Constant-time compare. */
export function verifyStreamToken(token: unknown, params: { authToken: string; now: Date }): string | null {
  if (typeof token !== "string" || token.length > 512) return null;
  const match = token.match(/^(.+)\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/);
  if (!match) return null;
  const [, callId, expiresRaw, mac] = match as unknown as [string, string, string, string];
  const expires = Number(expiresRaw);
  if (expires < params.now.getTime() / 1000) return null;
  const expected = Buffer.from(macOf(keyFrom(params.authToken), callId, expires));
  const given = Buffer.from(mac);
  return given.length === expected.length && timingSafeEqual(given, expected) ? callId : null;
}
