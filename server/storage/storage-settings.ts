/**
 * Recording storage settings: local files by default; `RECORDING_STORAGE=s3` switches to an S3-compatible bucket
 * (AWS S3, MinIO, R2, …). The settings are declared in server/config/settings/recordings.ts (meanings in docs/configuration.md);
 * these functions turn them into the store's options and are the check the configuration applies at start.
 */
export type RecordingStorageSettings =
  | { kind: "local" }
  | {
      kind: "s3";
      bucket: string;
      region: string;
      endpoint?: string;
      forcePathStyle: boolean;
      prefix: string;
      credentials?: { accessKeyId: string; secretAccessKey: string };
    };

/** Signed recording URLs are valid for 3 hours after the response is generated (spec, Limits). */
export const RECORDING_URL_TTL_SECONDS = 3 * 60 * 60;

export const DEFAULT_RECORDING_RETENTION_DAYS = 90;

function isTrue(value: string | undefined): boolean {
  return (value ?? "").trim().toLowerCase() === "true" || value === "1";
}

export function recordingStorageSettings(env: Readonly<Record<string, string | undefined>>): RecordingStorageSettings {
  const kind = (env.RECORDING_STORAGE ?? "local").trim().toLowerCase();
  if (kind === "local" || kind === "") return { kind: "local" };
  if (kind !== "s3") throw new Error(`RECORDING_STORAGE must be "local" or "s3" (got "${env.RECORDING_STORAGE}").`);
  const bucket = env.RECORDING_S3_BUCKET?.trim();
  if (!bucket) throw new Error("RECORDING_STORAGE=s3 needs RECORDING_S3_BUCKET.");
  const accessKeyId = env.RECORDING_S3_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.RECORDING_S3_SECRET_ACCESS_KEY?.trim();
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) {
    throw new Error("Set both RECORDING_S3_ACCESS_KEY_ID and RECORDING_S3_SECRET_ACCESS_KEY, or neither (AWS default credential chain).");
  }
  return {
    kind: "s3",
    bucket,
    region: env.RECORDING_S3_REGION?.trim() || "us-east-1",
    endpoint: env.RECORDING_S3_ENDPOINT?.trim() || undefined,
    forcePathStyle: isTrue(env.RECORDING_S3_FORCE_PATH_STYLE),
    prefix: env.RECORDING_S3_PREFIX?.trim() ?? "",
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
  };
}

/** How long audio is kept, in days; null means forever (`RECORDING_RETENTION_DAYS=0`). */
export function recordingRetentionDays(env: Readonly<Record<string, string | undefined>>): number | null {
  const raw = env.RECORDING_RETENTION_DAYS?.trim();
  if (!raw) return DEFAULT_RECORDING_RETENTION_DAYS;
  if (!/^\d+$/.test(raw)) throw new Error(`RECORDING_RETENTION_DAYS must be a whole number of days (got "${raw}").`);
  const days = Number(raw);
  return days === 0 ? null : days;
}
