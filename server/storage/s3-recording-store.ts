import type { S3Client } from "@aws-sdk/client-s3";
import { isExternalRecordingKey, limitBytes, recordingUrlExpiry, type RecordingStore, type SignedRecordingUrl } from "./recording-store-types";
import { RECORDING_URL_TTL_SECONDS, type RecordingStorageSettings } from "./storage-settings";

type S3Settings = Extract<RecordingStorageSettings, { kind: "s3" }>;

/**
 * Recordings in an S3-compatible bucket; audio is fetched by the client straight from the bucket through
 * presigned GET URLs (same 3-hour lifetime as local links). The SDK is loaded on first use only.
 */
export function createS3RecordingStore(settings: S3Settings): RecordingStore {
  let clientPromise: Promise<{ client: S3Client; sdk: typeof import("@aws-sdk/client-s3") }> | null = null;
  const load = () =>
    (clientPromise ??= (async () => {
      const sdk = await import("@aws-sdk/client-s3");
      const client = new sdk.S3Client({
        region: settings.region,
        endpoint: settings.endpoint,
        forcePathStyle: settings.forcePathStyle,
        credentials: settings.credentials,
      });
      return { client, sdk };
    })());
  const objectKey = (key: string) => `${settings.prefix}${key}`;

  return {
    kind: "s3",
    async put(key, data, contentType) {
      const { client, sdk } = await load();
      await client.send(new sdk.PutObjectCommand({ Bucket: settings.bucket, Key: objectKey(key), Body: data, ContentType: contentType }));
    },
    // A single PutObject needs the length up front: the download is gathered (bounded by maxBytes) and put whole.
    async putStream(key, body, contentType, { maxBytes }) {
      const chunks: Uint8Array[] = [];
      for await (const chunk of limitBytes(body, maxBytes)) chunks.push(chunk);
      const data = Buffer.concat(chunks);
      const { client, sdk } = await load();
      await client.send(new sdk.PutObjectCommand({ Bucket: settings.bucket, Key: objectKey(key), Body: data, ContentType: contentType }));
      return data.byteLength;
    },
    async delete(key) {
      const { client, sdk } = await load();
      await client.send(new sdk.DeleteObjectCommand({ Bucket: settings.bucket, Key: objectKey(key) }));
    },
    async exists(key) {
      const { client, sdk } = await load();
      try {
        await client.send(new sdk.HeadObjectCommand({ Bucket: settings.bucket, Key: objectKey(key) }));
        return true;
      } catch (error) {
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (status === 404 || (error as Error).name === "NotFound") return false;
        throw error;
      }
    },
    // Presigning is local computation: no request per object. Existence is trusted to the database
    // (the writer records the key after the upload; retention clears it after the delete).
    async signUrls(keys, now) {
      const { client, sdk } = await load();
      const { getSignedUrl } = await import("@aws-sdk/s3-request-presigner");
      const expiresAt = recordingUrlExpiry(now);
      const signingDate = new Date(expiresAt.getTime() - RECORDING_URL_TTL_SECONDS * 1000);
      const unique = [...new Set(keys)].filter((key) => !isExternalRecordingKey(key));
      const signed = await Promise.all(
        unique.map((key) =>
          getSignedUrl(client, new sdk.GetObjectCommand({ Bucket: settings.bucket, Key: objectKey(key) }), {
            expiresIn: RECORDING_URL_TTL_SECONDS,
            signingDate,
          }),
        ),
      );
      const urls = new Map<string, SignedRecordingUrl>();
      unique.forEach((key, index) => urls.set(key, { url: signed[index]!, expiresAt }));
      return urls;
    },
  };
}
