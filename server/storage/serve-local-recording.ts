import { Readable } from "node:stream";
import type { FileHandle } from "node:fs/promises";
import { parseQuery, queryRefusalResponse } from "@/server/http/query-params";
import { openLocalRecording } from "./recording-store";
import { verifyLocalRecordingUrl, ZRecordingLinkQuerySchema } from "./recording-url-signer";

export type ServeLocalRecordingOptions = { now?: () => Date; secret?: Buffer };

const CONTENT_TYPES: Record<string, string> = {
  wav: "audio/wav",
  mp3: "audio/mpeg",
  ogg: "audio/ogg",
  oga: "audio/ogg",
  opus: "audio/ogg",
  webm: "audio/webm",
  m4a: "audio/mp4",
  mp4: "audio/mp4",
  flac: "audio/flac",
};

const COMMON_HEADERS = {
  // The link is a bearer secret: no shared caches, no referrer leaks, no content sniffing.
  "Cache-Control": "private, no-store",
  "Referrer-Policy": "no-referrer",
  "X-Content-Type-Options": "nosniff",
};

function refusal(status: number, error: string, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ error, message }, { status, headers: { ...COMMON_HEADERS, ...headers } });
}

async function contentTypeOf(key: string, handle: FileHandle, size: number): Promise<string> {
  const extension = /\.([a-z0-9]+)$/i.exec(key)?.[1]?.toLowerCase();
  if (extension && CONTENT_TYPES[extension]) return CONTENT_TYPES[extension];
  const head = Buffer.alloc(Math.min(12, size));
  if (head.length > 0) await handle.read(head, 0, head.length, 0);
  const ascii = head.toString("latin1");
  if (ascii.startsWith("RIFF") && ascii.slice(8, 12) === "WAVE") return "audio/wav";
  if (ascii.startsWith("OggS")) return "audio/ogg";
  if (ascii.startsWith("fLaC")) return "audio/flac";
  if (ascii.startsWith("ID3") || (head[0] === 0xff && ((head[1] ?? 0) & 0xe0) === 0xe0)) return "audio/mpeg";
  return "application/octet-stream";
}

type ByteRange = { start: number; end: number } | "unsatisfiable" | null;

/**
 * One `bytes=` range (`a-b`, `a-`, `-n`). Null (serve everything) for a missing, malformed or multi-range header,
 * which RFC 9110 allows a server to ignore; "unsatisfiable" when it starts beyond the end.
 */
export function parseRangeHeader(header: string | null, size: number): ByteRange {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return null;
  const [, first, last] = match;
  if (first === "" && last === "") return null;
  if (first === "") {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== "" && Number(last) < start) return null;
  if (start >= size) return "unsatisfiable";
  return { start, end };
}

/**
 * Serves a local recording through its signed URL (`/api/recordings/<key>?expires=&signature=`): 400 for a query
 * that is not a link's (server/http/query-params.ts), 403 and no audio for a tampered or expired link, then the file
 * with Content-Length and single-range support so players can seek. Never logs the URL.
 */
export async function serveLocalRecording(req: Request, options: ServeLocalRecordingOptions = {}): Promise<Response> {
  const method = req.method.toUpperCase();
  if (method !== "GET" && method !== "HEAD") {
    return refusal(405, "METHOD_NOT_ALLOWED", "Recording links answer GET and HEAD only.", { Allow: "GET, HEAD" });
  }
  const url = new URL(req.url);
  const query = parseQuery(ZRecordingLinkQuerySchema, url);
  if (!query.ok) return queryRefusalResponse(query.refusal, COMMON_HEADERS);
  const now = options.now?.() ?? new Date();
  const check = verifyLocalRecordingUrl(url, now, { secret: options.secret });
  if (!check.ok) {
    const message =
      check.reason === "expired"
        ? "This recording link has expired. Fetch a fresh one with GET /api/v1/recordings/{callId}."
        : "This recording link is not valid.";
    return refusal(403, "FORBIDDEN", message);
  }

  const file = await openLocalRecording(check.key);
  if (!file) return refusal(404, "NOT_FOUND", "This recording is no longer available.");
  const { handle, size } = file;
  let streaming = false;
  try {
    const contentType = await contentTypeOf(check.key, handle, size);
    const headers: Record<string, string> = {
      ...COMMON_HEADERS,
      "Accept-Ranges": "bytes",
      "Content-Type": contentType,
      "Content-Disposition": "inline",
    };
    const range = parseRangeHeader(req.headers.get("range"), size);
    if (range === "unsatisfiable") {
      return new Response(null, { status: 416, headers: { ...headers, "Content-Range": `bytes */${size}` } });
    }
    const start = range?.start ?? 0;
    const end = range?.end ?? size - 1;
    const length = size === 0 ? 0 : end - start + 1;
    headers["Content-Length"] = String(length);
    if (range) headers["Content-Range"] = `bytes ${start}-${end}/${size}`;
    const status = range ? 206 : 200;
    if (method === "HEAD" || length === 0) return new Response(null, { status, headers });
    const stream = handle.createReadStream({ start, end, autoClose: true });
    streaming = true;
    return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, { status, headers });
  } finally {
    if (!streaming) await handle.close();
  }
}
