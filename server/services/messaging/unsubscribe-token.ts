import { createHmac, timingSafeEqual } from "node:crypto";
import { appBaseUrl } from "@/server/config/settings";
import { recordingSigningSecret } from "@/server/storage/recording-url-signer";

/** The one-click unsubscribe route (app/api/unsubscribe/[token]/route.ts). */
export const UNSUBSCRIBE_PATH = "/api/unsubscribe";

/** Domain-separated from the recording links that share the server secret. */
function macOf(messageId: string, secret: Buffer): string {
  return createHmac("sha256", secret).update(`unsubscribe:v1\n${messageId}`).digest("base64url");
}

/** `<base64url(messageId)>.<mac>`: names the email (and so its organization and address); no expiry (RFC 8058 links must keep working). */
export function createUnsubscribeToken(messageId: string, secret: Buffer = recordingSigningSecret()): string {
  return `${Buffer.from(messageId, "utf8").toString("base64url")}.${macOf(messageId, secret)}`;
}

/** The message ID a token was made for, or null for anything this server did not sign. */
export function verifyUnsubscribeToken(token: string, secret: Buffer = recordingSigningSecret()): string | null {
  const match = /^([A-Za-z0-9_-]{1,200})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return null;
  const messageId = Buffer.from(match[1]!, "base64url").toString("utf8");
  const expected = Buffer.from(macOf(messageId, secret));
  const given = Buffer.from(match[2]!);
  return expected.length === given.length && timingSafeEqual(expected, given) ? messageId : null;
}

export function unsubscribeUrl(messageId: string, baseUrl: string = appBaseUrl()): string {
  return `${baseUrl.replace(/\/+$/, "")}${UNSUBSCRIBE_PATH}/${createUnsubscribeToken(messageId)}`;
}
