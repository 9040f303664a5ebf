import twilio from "twilio";
import type { TwilioRealtimeSettings } from "@/server/voice/twilio-realtime/settings";

export const TWILIO_SIGNATURE_HEADER = "x-twilio-signature";

/**
 * Trust boundary for every Twilio callback: X-Twilio-Signature checked with the package's `validateRequest` over the
 * URL Twilio was given — PUBLIC_BASE_URL + the path and query we received (never the Host we see behind a proxy) —
 * and the form parameters. Returns false for a missing or wrong signature.
 */
export function isSignedByTwilio(
  settings: Pick<TwilioRealtimeSettings, "publicBaseUrl" | "twilio">,
  params: { pathAndQuery: string; signature: string | null; form: Record<string, string> },
): boolean {
  if (!params.signature) return false;
  const publicOrigin = new URL(settings.publicBaseUrl);
  const url = `${publicOrigin.protocol}//${publicOrigin.host}${params.pathAndQuery}`;
  return twilio.validateRequest(settings.twilio.authToken, params.signature, url, params.form);
}

/** The media stream's WebSocket handshake is signed over the `wss://` URL with no parameters. */
export function isSignedStreamHandshake(settings: Pick<TwilioRealtimeSettings, "publicBaseUrl" | "twilio">, params: { pathAndQuery: string; signature: string | null }): boolean {
  if (!params.signature) return false;
  const publicOrigin = new URL(settings.publicBaseUrl);
  return twilio.validateRequest(settings.twilio.authToken, params.signature, `wss://${publicOrigin.host}${params.pathAndQuery}`, {});
}
