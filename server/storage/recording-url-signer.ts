import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { getConfig } from "@/server/config/env";
import { appBaseUrl, dataDir, mayGenerateSecrets } from "@/server/config/settings";
import { LOCAL_RECORDING_ROUTE } from "./recording-route";

export { LOCAL_RECORDING_ROUTE } from "./recording-route";

const SECRET_FILE = "app.secret";

let cachedSecret: { source: string; value: Buffer } | null = null;

/** Reads `$DATA_DIR/app.secret`, creating it once (the same file `npm start` generates in embedded mode). */
function loadOrCreateSecretFile(): string {
  const file = path.join(dataDir(), SECRET_FILE);
  try {
    return readFileSync(file, "utf8").trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  mkdirSync(path.dirname(file), { recursive: true });
  try {
    writeFileSync(file, randomBytes(32).toString("base64url"), { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return readFileSync(file, "utf8").trim();
}

/**
 * The server secret that signs local recording URLs: `APP_SECRET`, or a secret generated once into `$DATA_DIR`
 * in embedded mode and outside production. A production server with an external database must set APP_SECRET
 * (every instance has to verify the URLs any other instance signed).
 */
export function recordingSigningSecret(): Buffer {
  const fromEnv = getConfig().APP_SECRET;
  const source = fromEnv ? `env:${fromEnv}` : `file:${dataDir()}`;
  if (cachedSecret?.source === source) return cachedSecret.value;
  let value: string;
  if (fromEnv) value = fromEnv;
  else if (mayGenerateSecrets()) value = loadOrCreateSecretFile();
  else throw new Error("APP_SECRET must be set to sign recording URLs when DATABASE_URL is used in production.");
  if (value.length < 16) throw new Error("APP_SECRET must be at least 16 characters.");
  cachedSecret = { source, value: Buffer.from(value, "utf8") };
  return cachedSecret.value;
}

/** The MAC binds the exact storage key and the expiry; changing either (or the signature) invalidates the link. */
function signatureOf(key: string, expiresUnix: number, secret: Buffer): string {
  return createHmac("sha256", secret).update(`recording:v1\n${key}\n${expiresUnix}`).digest("base64url");
}

export function encodeRecordingKeyPath(key: string): string {
  return key.split("/").map(encodeURIComponent).join("/");
}

/** A URL to the local signed-recording route, valid until `expiresAt` (whole seconds: give a whole-second time). */
export function signLocalRecordingUrl(key: string, expiresAt: Date, options: { baseUrl?: string; secret?: Buffer } = {}): string {
  const expiresUnix = Math.ceil(expiresAt.getTime() / 1000);
  const signature = signatureOf(key, expiresUnix, options.secret ?? recordingSigningSecret());
  const base = (options.baseUrl ?? appBaseUrl()).replace(/\/+$/, "");
  return `${base}${LOCAL_RECORDING_ROUTE}${encodeRecordingKeyPath(key)}?expires=${expiresUnix}&signature=${signature}`;
}

const EXPIRES = /^\d{1,12}$/;
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

/** The query of a signed link as signLocalRecordingUrl writes it (the route checks it first: 400 when it is not). */
export const ZRecordingLinkQuerySchema = z.object({
  expires: z.string().regex(EXPIRES, "must be the link's expiry (Unix seconds, digits only)"),
  signature: z.string().regex(SIGNATURE, "must be the link's signature (43 characters, base64url)"),
});

export type RecordingUrlCheck = { ok: true; key: string; expiresAt: Date } | { ok: false; reason: "malformed" | "bad-signature" | "expired" };

/**
 * Verifies a signed local recording URL. The signature is checked before the expiry, in constant time, and
 * nothing about the URL is logged (it is a bearer secret).
 */
export function verifyLocalRecordingUrl(url: URL, now: Date, options: { secret?: Buffer } = {}): RecordingUrlCheck {
  const { pathname, searchParams } = url;
  const at = pathname.indexOf(LOCAL_RECORDING_ROUTE);
  if (at !== 0) return { ok: false, reason: "malformed" };
  let key: string;
  try {
    key = pathname.slice(LOCAL_RECORDING_ROUTE.length).split("/").map(decodeURIComponent).join("/");
  } catch {
    return { ok: false, reason: "malformed" };
  }
  const expiresRaw = searchParams.get("expires") ?? "";
  const signature = searchParams.get("signature") ?? "";
  if (!key || !EXPIRES.test(expiresRaw) || !SIGNATURE.test(signature)) return { ok: false, reason: "malformed" };
  const expiresUnix = Number(expiresRaw);
  const expected = Buffer.from(signatureOf(key, expiresUnix, options.secret ?? recordingSigningSecret()));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: "bad-signature" };
  const expiresAt = new Date(expiresUnix * 1000);
  if (now.getTime() >= expiresAt.getTime()) return { ok: false, reason: "expired" };
  return { ok: true, key, expiresAt };
}
