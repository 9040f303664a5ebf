import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { decryptSecret, DecryptionError, encryptSecret, getEncryptionKey } from "@/server/crypto/encryption";

const saved = { key: process.env.APP_ENCRYPTION_KEY, dataDir: process.env.DATA_DIR, nodeEnv: process.env.NODE_ENV, embedded: process.env.EMBEDDED_MODE };

const env = process.env as Record<string, string | undefined>;

afterEach(() => {
  for (const [name, value] of [
    ["APP_ENCRYPTION_KEY", saved.key],
    ["DATA_DIR", saved.dataDir],
    ["NODE_ENV", saved.nodeEnv],
    ["EMBEDDED_MODE", saved.embedded],
  ] as const) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
});

describe("AES-256-GCM secrets", () => {
  const key = randomBytes(32);

  it("round-trips, with a fresh IV each time", () => {
    const a = encryptSecret("cp_secret_value", "ctx", key);
    const b = encryptSecret("cp_secret_value", "ctx", key);
    expect(a).not.toBe(b);
    expect(a).not.toContain("cp_secret_value");
    expect(decryptSecret(a, "ctx", key)).toBe("cp_secret_value");
  });

  it("refuses a ciphertext moved to another context, tampered with, or read with another key", () => {
    const payload = encryptSecret("cp_secret_value", "provider-connection:org.a:chili-piper", key);
    expect(() => decryptSecret(payload, "provider-connection:org.b:chili-piper", key)).toThrow(DecryptionError);
    const parts = payload.split(".");
    const flipped = Buffer.from(parts[4]!, "base64url");
    flipped[0] = flipped[0]! ^ 1;
    parts[4] = flipped.toString("base64url");
    expect(() => decryptSecret(parts.join("."), "provider-connection:org.a:chili-piper", key)).toThrow(DecryptionError);
    expect(() => decryptSecret(payload, "provider-connection:org.a:chili-piper", randomBytes(32))).toThrow(/different APP_ENCRYPTION_KEY/);
  });

  it("takes APP_ENCRYPTION_KEY as base64 or hex and refuses a key of the wrong size", () => {
    const raw = randomBytes(32);
    process.env.APP_ENCRYPTION_KEY = raw.toString("hex");
    expect(getEncryptionKey().equals(raw)).toBe(true);
    process.env.APP_ENCRYPTION_KEY = raw.toString("base64");
    expect(getEncryptionKey().equals(raw)).toBe(true);
    process.env.APP_ENCRYPTION_KEY = randomBytes(16).toString("base64");
    expect(() => getEncryptionKey()).toThrow(/32 bytes/);
  });

  it("generates $DATA_DIR/app-encryption.key once in embedded mode and keeps using it", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "enc-key-"));
    try {
      delete process.env.APP_ENCRYPTION_KEY;
      process.env.DATA_DIR = dir;
      process.env.EMBEDDED_MODE = "1";
      const first = getEncryptionKey();
      const file = path.join(dir, "app-encryption.key");
      expect(Buffer.from(readFileSync(file, "utf8").trim(), "base64").equals(first)).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(getEncryptionKey().equals(first)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses to invent a key in production mode", () => {
    delete process.env.APP_ENCRYPTION_KEY;
    delete process.env.EMBEDDED_MODE;
    process.env.DATA_DIR = path.join(os.tmpdir(), `enc-prod-${Date.now()}`);
    env.NODE_ENV = "production";
    expect(process.env.DATABASE_URL).toBeTruthy();
    expect(() => getEncryptionKey()).toThrow(/APP_ENCRYPTION_KEY is not set/);
  });
});
