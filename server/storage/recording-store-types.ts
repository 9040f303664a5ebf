import { RECORDING_URL_TTL_SECONDS } from "./storage-settings";

export type SignedRecordingUrl = { url: string; expiresAt: Date };

/**
 * Where call audio lives. Local files under `$DATA_DIR/recordings` by default; an S3-compatible bucket in
 * production (selected by settings, see storage-settings.ts). Keys are opaque, e.g. `<organizationId>/<callId>.wav`.
 */
export type RecordingStore = {
  kind: "local" | "s3";
  put(key: string, data: Uint8Array, contentType: string): Promise<void>;
  /**
   * Writes a streamed body (a downloaded recording) under `key` without holding it whole where the store allows
   * (local: streamed to a temporary file renamed into place, so a failed download never leaves a partial file at the
   * key). Throws `RecordingTooLargeError` past `maxBytes` and whatever the stream throws; returns the bytes written.
   */
  putStream(key: string, body: AsyncIterable<Uint8Array>, contentType: string, options: { maxBytes: number }): Promise<number>;
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /**
   * Short-lived signed GET URLs (3 hours from `now`) for the keys whose audio this store can locate; keys it
   * cannot locate are absent from the map. Local storage checks the file; S3 presigns without a round trip.
   * The URLs are bearer secrets: never log them.
   */
  signUrls(keys: string[], now: Date): Promise<Map<string, SignedRecordingUrl>>;
};

/** Recording keys that are provider URLs (audio hosted elsewhere) cannot be signed by us: `no-recording`. */
export function isExternalRecordingKey(key: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(key);
}

/** The expiry of a URL signed at `now`: exactly the 3-hour lifetime, rounded up to a whole second. */
export function recordingUrlExpiry(now: Date): Date {
  return new Date(Math.ceil(now.getTime() / 1000) * 1000 + RECORDING_URL_TTL_SECONDS * 1000);
}

export class RecordingTooLargeError extends Error {
  constructor(maxBytes: number) {
    super(`The recording is larger than ${maxBytes} bytes.`);
    this.name = "RecordingTooLargeError";
  }
}

/** Passes the chunks through, throwing `RecordingTooLargeError` once more than `maxBytes` went by. */
export async function* limitBytes(body: AsyncIterable<Uint8Array>, maxBytes: number): AsyncGenerator<Uint8Array> {
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > maxBytes) throw new RecordingTooLargeError(maxBytes);
    yield chunk;
  }
}
