import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { ulid } from "ulid";

const SECRET_PREFIX = "whsec_";

/** `whsec_` + base64 of 24–64 random bytes (Standard Webhooks symmetric secret). */
export function generateWebhookSecret(byteLength = 32): string {
  if (byteLength < 24 || byteLength > 64) throw new Error("Webhook secrets are 24 to 64 random bytes.");
  return SECRET_PREFIX + randomBytes(byteLength).toString("base64");
}

/**
 * The `webhook-id` of a call's result: derived from the call ID alone, so every retry and replay of the same call
 * (to any endpoint) carries the same id and receivers can deduplicate on it (or on callId).
 */
export function messageIdForCall(callId: string): string {
  return `msg_${callId.replace(/^call\./, "")}`;
}

/** Test events are separate messages: each send gets its own id, so a deduplicating receiver still sees it. */
export function messageIdForTestEvent(): string {
  return `msg_test_${ulid().toLowerCase()}`;
}

export type SignedHeaders = {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
  "content-type": "application/json";
};

/**
 * Standard Webhooks headers for one attempt. Every secret in `secrets` signs (the current one first); during a
 * rotation's grace period that is the new and the previous secret, and a receiver holding either one verifies.
 */
export function signWebhook(params: { secrets: string[]; messageId: string; timestamp: Date; body: string }): SignedHeaders {
  const signatures = params.secrets.map((secret) => new Webhook(secret).sign(params.messageId, params.timestamp, params.body));
  return {
    "webhook-id": params.messageId,
    "webhook-timestamp": String(Math.floor(params.timestamp.getTime() / 1000)),
    "webhook-signature": signatures.join(" "),
    "content-type": "application/json",
  };
}
