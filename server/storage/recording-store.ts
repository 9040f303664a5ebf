import { mkdir, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { dataDir } from "@/server/config/settings";

/**
 * Where call audio lives. Local files under `$DATA_DIR/recordings` by default; an S3-compatible bucket in
 * production (selected by settings). Keys are opaque, e.g. `<organizationId>/<callId>.wav`.
 */
export type RecordingStore = {
  kind: "local" | "s3";
  put(key: string, data: Uint8Array, contentType: string): Promise<void>;
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
};

export function recordingsRoot(): string {
  return path.join(dataDir(), "recordings");
}

/** Resolves a key inside the recordings root; refuses keys that would escape it. */
export function localRecordingPath(key: string): string {
  const root = recordingsRoot();
  const resolved = path.resolve(root, key);
  if (!resolved.startsWith(root + path.sep)) throw new Error("Invalid recording key");
  return resolved;
}

export const localRecordingStore: RecordingStore = {
  kind: "local",
  async put(key, data) {
    const file = localRecordingPath(key);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, data);
  },
  async delete(key) {
    await rm(localRecordingPath(key), { force: true });
  },
  async exists(key) {
    try {
      return (await stat(localRecordingPath(key))).isFile();
    } catch {
      return false;
    }
  },
};

export function getRecordingStore(): RecordingStore {
  return localRecordingStore;
}
