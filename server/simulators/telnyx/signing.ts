import { generateKeyPairSync, sign, type KeyObject } from "node:crypto";

/**
 * Telnyx webhook signing, written from Telnyx's documentation (independently of the `telnyx` package the tests verify
 * with):
 * - https://developers.telnyx.com/docs/messaging/messages/receiving-webhooks#webhook-signing — every webhook carries
 *   `telnyx-signature-ed25519` (base64 Ed25519 signature) and `telnyx-timestamp` (Unix seconds); the signed bytes are
 *   `${timestamp}|${raw JSON body}`; the account's public key is shown (base64, 32 raw bytes) in the Mission Control
 *   portal under Keys & Credentials → Public Key.
 * - https://developers.telnyx.com/docs/voice/programmable-voice/receiving-webhooks — the same headers on Call Control
 *   webhooks; receivers reject timestamps more than five minutes away from now (replay protection).
 */

export type TelnyxSigningKey = {
  /** The public key as the portal shows it: base64 of the 32 raw Ed25519 bytes. */
  publicKey: string;
  /** The two signature headers for `body` sent at `timestamp` (Unix seconds; default now). */
  headersFor(body: string, timestamp?: number): { "telnyx-signature-ed25519": string; "telnyx-timestamp": string };
};

/** The raw 32-byte Ed25519 public key is the last 32 bytes of its SPKI DER encoding. */
function rawPublicKey(key: KeyObject): Buffer {
  const der = key.export({ format: "der", type: "spki" });
  return der.subarray(der.length - 32);
}

export function telnyxSignature(privateKey: KeyObject, timestamp: number, body: string): string {
  return sign(null, Buffer.from(`${timestamp}|${body}`, "utf8"), privateKey).toString("base64");
}

/** A fresh key pair (each simulator holds its own, as each Telnyx account has its own). */
export function newSigningKey(): TelnyxSigningKey {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  return {
    publicKey: rawPublicKey(publicKey).toString("base64"),
    headersFor(body, timestamp = Math.floor(Date.now() / 1000)) {
      return { "telnyx-signature-ed25519": telnyxSignature(privateKey, timestamp, body), "telnyx-timestamp": String(timestamp) };
    },
  };
}
