/** The app's data-encryption key as given (`APP_ENCRYPTION_KEY` or the key file): 64 hex characters or base64 of 32 bytes. */
export function decodeEncryptionKey(raw: string): Buffer | null {
  const value = raw.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, "hex") : Buffer.from(value, "base64");
  return key.length === 32 ? key : null;
}

export const ENCRYPTION_KEY_FORMAT = "32 bytes, as 64 hex characters or base64 (generate one with: openssl rand -base64 32)";
