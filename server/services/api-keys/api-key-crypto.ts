import { createHash, hash, randomBytes, timingSafeEqual } from "node:crypto";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
const PREFIX_LENGTH = 12; // "ock_" + 8 random chars: shown in the dashboard, unique per key

function randomString(length: number): string {
  const bytes = randomBytes(length);
  let out = "";
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[i]! % ALPHABET.length];
  return out;
}

/** A new key: `ock_` + 8 chars of visible prefix + 32 secret chars (~165 bits of entropy). */
export function generateApiKey(): { key: string; prefix: string; keyHash: string } {
  const key = `ock_${randomString(8)}${randomString(32)}`;
  return { key, prefix: keyPrefix(key), keyHash: hashApiKey(key) };
}

export function keyPrefix(key: string): string {
  return key.slice(0, PREFIX_LENGTH);
}

export function hashApiKey(key: string): string {
  // crypto.hash (Node ≥ 20.12): the one-shot digest, without a Hash object per call (every API request hashes its key).
  return typeof hash === "function" ? hash("sha256", key, "hex") : createHash("sha256").update(key).digest("hex");
}

export function looksLikeApiKey(key: string): boolean {
  return /^ock_[a-z0-9]{40}$/.test(key);
}

/** Constant-time comparison of two hex digests of equal length. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}
