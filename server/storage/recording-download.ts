import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { limitBytes, type RecordingStore } from "./recording-store-types";

/**
 * Largest recording downloaded from a provider: an hour of Twilio's dual-channel 16-bit 8 kHz WAV is 115 MB. Local
 * storage streams it to disk; S3 gathers it for one PutObject.
 */
export const MAX_RECORDING_DOWNLOAD_BYTES = 256 * 1024 * 1024;

export type DownloadRecordingParams = {
  url: string;
  key: string;
  contentType: string;
  store: RecordingStore;
  timeoutMs: number;
  maxBytes?: number;
  /**
   * Edits the audio before it is stored (the recording's redaction): the download is then gathered (within `maxBytes`)
   * and the edited bytes written with one `put`. Null: the audio cannot be kept — nothing is stored, and the download
   * throws `RecordingNotKeptError`.
   */
  edit?: (bytes: Uint8Array) => Uint8Array | null;
};

/** The downloaded audio could not be made safe to keep (`edit` said null). */
export class RecordingNotKeptError extends Error {
  constructor() {
    super("the downloaded recording could not be edited");
    this.name = "RecordingNotKeptError";
  }
}

/**
 * Downloads a provider-hosted recording straight into the recording store (streamed, never held as one string). The
 * caller has checked that the URL's origin is trusted (server/voice/recording-origins.ts); redirects are refused so the
 * origin cannot send the request elsewhere. Throws on any failure (status, timeout, size, store): nothing is left at
 * the key then.
 */
export async function downloadRecordingToStore(params: DownloadRecordingParams): Promise<number> {
  const response = await fetch(params.url, {
    redirect: "error",
    headers: { "accept-encoding": "identity" },
    signal: AbortSignal.timeout(params.timeoutMs),
  });
  const declared = Number(response.headers.get("content-length") ?? NaN);
  if (response.status !== 200 || !response.body || declared > (params.maxBytes ?? MAX_RECORDING_DOWNLOAD_BYTES)) {
    await response.body?.cancel();
    throw new Error(`the recording download answered ${response.status}`);
  }
  const body = Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>);
  if (params.edit) {
    const chunks: Uint8Array[] = [];
    for await (const chunk of limitBytes(body, params.maxBytes ?? MAX_RECORDING_DOWNLOAD_BYTES)) chunks.push(chunk);
    const downloaded = new Uint8Array(Buffer.concat(chunks));
    if (downloaded.byteLength === 0) throw new Error("the recording download was empty");
    const edited = params.edit(downloaded);
    if (!edited) throw new RecordingNotKeptError();
    await params.store.put(params.key, edited, params.contentType);
    return edited.byteLength;
  }
  const bytes = await params.store.putStream(params.key, body, params.contentType, { maxBytes: params.maxBytes ?? MAX_RECORDING_DOWNLOAD_BYTES });
  if (bytes === 0) {
    await params.store.delete(params.key);
    throw new Error("the recording download was empty");
  }
  return bytes;
}
