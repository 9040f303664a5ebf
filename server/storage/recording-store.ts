import { randomBytes } from "node:crypto";
import { createWriteStream, statSync } from "node:fs";
import { mkdir, open, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { getConfig } from "@/server/config/env";
import { appBaseUrl, dataDir } from "@/server/config/settings";
import { recordingSigningSecret, signLocalRecordingUrl } from "./recording-url-signer";
import { createS3RecordingStore } from "./s3-recording-store";
import { isExternalRecordingKey, limitBytes, recordingUrlExpiry, type RecordingStore, type SignedRecordingUrl } from "./recording-store-types";
import { recordingStorageSettings, type RecordingStorageSettings } from "./storage-settings";

export { isExternalRecordingKey, RecordingTooLargeError, recordingUrlExpiry, type RecordingStore, type SignedRecordingUrl } from "./recording-store-types";

export function recordingsRoot(): string {
  return path.join(dataDir(), "recordings");
}

/** Resolves a key inside the recordings root; refuses keys that would escape it. */
export function localRecordingPath(key: string, root: string = recordingsRoot()): string {
  const resolved = path.resolve(root, key);
  if (!resolved.startsWith(root + path.sep)) throw new Error("Invalid recording key");
  return resolved;
}

async function isLocalFile(key: string): Promise<boolean> {
  try {
    return (await stat(localRecordingPath(key))).isFile();
  } catch {
    return false;
  }
}

/**
 * Synchronous on purpose: a stat of a local file is a couple of microseconds from the dentry cache, while 500
 * async stats queue through libuv's 4-thread pool (≈ 10 ms for one POST /recordings of 500 calls).
 */
function isLocalFileNow(key: string, root: string): boolean {
  try {
    return statSync(localRecordingPath(key, root), { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}

export const localRecordingStore: RecordingStore = {
  kind: "local",
  async put(key, data) {
    const file = localRecordingPath(key);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, data);
  },
  async putStream(key, body, _contentType, { maxBytes }) {
    const file = localRecordingPath(key);
    await mkdir(path.dirname(file), { recursive: true });
    const partial = `${file}.${randomBytes(6).toString("hex")}.partial`;
    let written = 0;
    try {
      const counted = async function* () {
        for await (const chunk of limitBytes(body, maxBytes)) {
          written += chunk.byteLength;
          yield chunk;
        }
      };
      await pipeline(Readable.from(counted()), createWriteStream(partial));
      await rename(partial, file);
      return written;
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
  },
  async delete(key) {
    await rm(localRecordingPath(key), { force: true });
  },
  exists: isLocalFile,
  async signUrls(keys, now) {
    const expiresAt = recordingUrlExpiry(now);
    const signing = { baseUrl: appBaseUrl(), secret: recordingSigningSecret() };
    const root = recordingsRoot();
    const urls = new Map<string, SignedRecordingUrl>();
    for (const key of new Set(keys)) {
      if (isExternalRecordingKey(key) || !isLocalFileNow(key, root)) continue;
      urls.set(key, { url: signLocalRecordingUrl(key, expiresAt, signing), expiresAt });
    }
    return urls;
  },
};

/** Opens a local recording for the signed-URL route; null when the file is gone. */
export async function openLocalRecording(key: string) {
  try {
    const handle = await open(localRecordingPath(key), "r");
    const info = await handle.stat();
    if (!info.isFile()) {
      await handle.close();
      return null;
    }
    return { handle, size: info.size };
  } catch {
    return null;
  }
}

let cachedStore: { settings: string; store: RecordingStore } | null = null;

/** The store selected by settings (RECORDING_STORAGE): local files unless `s3` is configured. */
export function getRecordingStore(settings: RecordingStorageSettings = recordingStorageSettings(getConfig().raw)): RecordingStore {
  if (settings.kind === "local") return localRecordingStore;
  const fingerprint = JSON.stringify(settings);
  if (cachedStore?.settings !== fingerprint) cachedStore = { settings: fingerprint, store: createS3RecordingStore(settings) };
  return cachedStore.store;
}
