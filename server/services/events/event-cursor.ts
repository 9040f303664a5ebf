import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { getEncryptionKey } from "@/server/crypto/encryption";
import { AppError } from "@/server/errors";

/**
 * Cursors of GET /events are opaque, per organization: the feed's position is a server-wide sequence, so a readable
 * cursor would let one organization measure how many results all the others produce. A cursor is `e2` + base64url of
 * AES-256-GCM(position) with a random IV, the organization's id bound as additional data, under a key derived from
 * APP_ENCRYPTION_KEY: it tells nothing, and another organization's cursor (or a forged one) is refused with 400.
 * Cursors of the earlier readable format (`e1:<position>`, base64url) are still read: they only ever filter the
 * caller's own events.
 */
const PREFIX = "e2";
const LEGACY_PREFIX = "e1:";
const IV_BYTES = 12;
const TAG_BYTES = 16;
const POSITION_BYTES = 8;

let derived: { source: Buffer; key: Buffer } | null = null;

function cursorKey(): Buffer {
  const source = getEncryptionKey();
  if (derived?.source !== source) derived = { source, key: Buffer.from(hkdfSync("sha256", source, Buffer.alloc(0), "events-feed-cursor", 32)) };
  return derived.key;
}

export function encodeEventCursor(organizationId: string, position: number): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", cursorKey(), iv);
  cipher.setAAD(Buffer.from(organizationId, "utf8"));
  const plain = Buffer.alloc(POSITION_BYTES);
  plain.writeBigUInt64BE(BigInt(position));
  const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
  return `${PREFIX}${Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString("base64url")}`;
}

/** The position a cursor stands for; 400 INVALID_REQUEST for anything this API did not hand out to this organization. */
export function decodeEventCursor(organizationId: string, cursor: string): number {
  const position = /^[A-Za-z0-9_-]+$/.test(cursor) ? (openCursor(organizationId, cursor) ?? legacyPosition(cursor)) : null;
  if (position === null || !Number.isSafeInteger(position)) {
    throw new AppError("INVALID_REQUEST", "Invalid request: after: is not a cursor returned by GET /events for this organization (use nextCursor).");
  }
  return position;
}

function openCursor(organizationId: string, cursor: string): number | null {
  if (!cursor.startsWith(PREFIX)) return null;
  const bytes = Buffer.from(cursor.slice(PREFIX.length), "base64url");
  if (bytes.length !== IV_BYTES + POSITION_BYTES + TAG_BYTES) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", cursorKey(), bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(organizationId, "utf8"));
    decipher.setAuthTag(bytes.subarray(IV_BYTES + POSITION_BYTES));
    const plain = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, IV_BYTES + POSITION_BYTES)), decipher.final()]);
    return Number(plain.readBigUInt64BE());
  } catch {
    return null;
  }
}

function legacyPosition(cursor: string): number | null {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const digits = text.startsWith(LEGACY_PREFIX) ? text.slice(LEGACY_PREFIX.length) : "";
  return /^\d{1,15}$/.test(digits) ? Number(digits) : null;
}
