import { createHmac } from "node:crypto";

/**
 * X-Twilio-Signature exactly as Twilio computes it (written from Twilio's security documentation, independently of
 * the `twilio` package the app validates with): base64 HMAC-SHA1, keyed with the account's auth token, over the full
 * URL followed by every POST parameter's name and value, sorted by name.
 */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, key) => acc + key + params[key], url);
  return createHmac("sha1", authToken).update(Buffer.from(data, "utf8")).digest("base64");
}
