import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { getConfig } from "@/server/config/env";
import { dataDir, mayGenerateSecrets } from "@/server/config/settings";
import { decodeEncryptionKey, ENCRYPTION_KEY_FORMAT } from "./key-format";

const ALGORITHM = "aes-256-gcm";
const IV_BYTES = 12;
const KEY_FILE = "app-encryption.key";
const VERSION = "v1";

let cachedKey: { source: string; key: Buffer } | null = null;

function parseKey(raw: string, origin: string): Buffer {
  const key = decodeEncryptionKey(raw);
  if (!key) throw new Error(`${origin} must be ${ENCRYPTION_KEY_FORMAT}.`);
  return key;
}

/** Reads `$DATA_DIR/app-encryption.key`, creating it once (exclusive create, so two processes agree on one key). */
function loadOrCreateKeyFile(): Buffer {
  const file = path.join(dataDir(), KEY_FILE);
  try {
    return parseKey(readFileSync(file, "utf8"), file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  mkdirSync(path.dirname(file), { recursive: true });
  try {
    writeFileSync(file, randomBytes(32).toString("base64") + "\n", { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return parseKey(readFileSync(file, "utf8"), file);
}

/**
 * The app's data-encryption key: `APP_ENCRYPTION_KEY` when set (production), otherwise a key generated once
 * into `$DATA_DIR/app-encryption.key` (embedded mode and development). A production server without the
 * variable refuses to start encrypting rather than invent a key that the next instance would not share.
 */
export function getEncryptionKey(): Buffer {
  const fromEnv = getConfig().APP_ENCRYPTION_KEY;
  const source = fromEnv ? `env:${fromEnv}` : `file:${dataDir()}`;
  if (cachedKey?.source === source) return cachedKey.key;
  let key: Buffer;
  if (fromEnv) {
    key = parseKey(fromEnv, "APP_ENCRYPTION_KEY");
  } else if (mayGenerateSecrets()) {
    key = loadOrCreateKeyFile();
  } else {
    throw new Error("APP_ENCRYPTION_KEY is not set: production deployments must provide it (32 bytes, base64 or hex).");
  }
  cachedKey = { source, key };
  return key;
}

function keyId(key: Buffer): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 8);
}

/**
 * AES-256-GCM with a random 96-bit IV. `context` is bound as additional authenticated data, so a ciphertext
 * copied onto another row (another organization) fails to decrypt. Output: `v1.<keyId>.<iv>.<tag>.<ciphertext>`.
 */
export function encryptSecret(plaintext: string, context: string, key: Buffer = getEncryptionKey()): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv);
  cipher.setAAD(Buffer.from(context, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, keyId(key), iv.toString("base64url"), tag.toString("base64url"), ciphertext.toString("base64url")].join(".");
}

export class DecryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DecryptionError";
  }
}

export function decryptSecret(payload: string, context: string, key: Buffer = getEncryptionKey()): string {
  const parts = payload.split(".");
  if (parts.length !== 5 || parts[0] !== VERSION) throw new DecryptionError("Unrecognised ciphertext format.");
  const [, storedKeyId, iv, tag, ciphertext] = parts as [string, string, string, string, string];
  if (storedKeyId !== keyId(key)) {
    throw new DecryptionError("This secret was encrypted with a different APP_ENCRYPTION_KEY.");
  }
  try {
    const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    throw new DecryptionError("The secret could not be decrypted (tampered, or bound to another record).");
  }
}

/** A short, non-reversible identifier of a secret, safe to store and show. */
export function secretFingerprint(secret: string): string {
  return createHash("sha256").update(secret).digest("hex").slice(0, 12);
}
