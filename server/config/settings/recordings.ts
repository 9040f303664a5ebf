import { settingsOf } from "./setting";
import { flag, httpUrl, oneOf, text, wholeNumber } from "./value-types";

/** Where call recordings are kept and for how long (server/storage/storage-settings.ts, docs/conversations.md). */
const setting = settingsOf("Recordings");

export const recordingSettings = {
  RECORDING_STORAGE: setting(oneOf(["local", "s3"] as const).default("local"), {
    description: "`local`: files under `$DATA_DIR/recordings` behind signed links; `s3`: an S3-compatible bucket with presigned URLs (docs/conversations.md).",
    default: "`local`",
    sameOnEveryInstance: true,
  }),
  RECORDING_S3_BUCKET: setting(text().optional(), { description: "Bucket name (required with `s3`).", sameOnEveryInstance: true }),
  RECORDING_S3_REGION: setting(text().default("us-east-1"), { description: "Bucket region.", default: "`us-east-1`", sameOnEveryInstance: true }),
  RECORDING_S3_ENDPOINT: setting(httpUrl().optional(), {
    description: "Endpoint of a non-AWS service, e.g. `http://minio:9000`.",
    default: "AWS",
    sameOnEveryInstance: true,
  }),
  RECORDING_S3_FORCE_PATH_STYLE: setting(flag().default(false), {
    description: "`true` for path-style addressing (MinIO).",
    default: "`false`",
    sameOnEveryInstance: true,
  }),
  RECORDING_S3_PREFIX: setting(text().default(""), { description: "Key prefix inside the bucket, e.g. `recordings/`.", sameOnEveryInstance: true }),
  RECORDING_S3_ACCESS_KEY_ID: setting(text().optional(), {
    description: "Static credentials (with `RECORDING_S3_SECRET_ACCESS_KEY`: both or neither).",
    default: "the AWS default credential chain",
    sameOnEveryInstance: true,
  }),
  RECORDING_S3_SECRET_ACCESS_KEY: setting(text().optional(), { description: "The access key's secret.", secret: true, sameOnEveryInstance: true }),
  RECORDING_RETENTION_DAYS: setting(wholeNumber(0, 36_500).default(90), {
    description: "Days audio is kept after the call; `0` keeps it forever.",
    default: "`90`",
    sameOnEveryInstance: true,
  }),
};
