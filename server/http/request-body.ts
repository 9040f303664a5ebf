import { hasBrand, stampBrands } from "@/server/runtime/cross-copy";
import { apiBodyLimitBytes, apiBulkBodyLimitBytes } from "@/server/config/settings";

/**
 * Reading `/api/v1` request bodies within a byte limit: refused by Content-Length before reading, and cut off while
 * reading when no length was declared (chunked) or the declared one was a lie.
 */

/**
 * Routes with their own, larger limit: bulk enrollment and its preview (1,000 contacts, `API_BULK_BODY_LIMIT_BYTES`) and
 * POST /suppressions (10,000 numbers of up to 64 characters: ~670 kB of JSON at worst, so 1 MB).
 */
const ROUTE_BODY_LIMITS: Record<string, () => number> = {
  "POST /agents/{agentId}/schedule/sequences": apiBulkBodyLimitBytes,
  "POST /agents/{agentId}/schedule/sequences/preview": apiBulkBodyLimitBytes,
  "POST /suppressions": () => Math.max(apiBodyLimitBytes(), SUPPRESSIONS_BODY_LIMIT_BYTES),
};

export const SUPPRESSIONS_BODY_LIMIT_BYTES = 1024 * 1024;

/** The body limit of a route, by its method and OpenAPI path template. */
export function bodyLimitBytes(method: string, template: string): number {
  return (ROUTE_BODY_LIMITS[`${method.toUpperCase()} ${template}`] ?? apiBodyLimitBytes)();
}

/** The largest body any route accepts: what the Node server lets a handler read at most. */
export function largestBodyLimitBytes(): number {
  return Math.max(apiBodyLimitBytes(), ...Object.values(ROUTE_BODY_LIMITS).map((limit) => limit()));
}

/** 262144 → "256 kB", 2097152 → "2 MB" (binary multiples, as the limits are set). */
export function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} kB`;
  return `${bytes} bytes`;
}

export class BodyTooLargeError extends Error {
  /** Checked by brand: the server's body reader and a Next route's handler may be different module copies. */
  static readonly brand: symbol = Symbol.for("outbound-calling.BodyTooLargeError");
  static [Symbol.hasInstance](value: unknown): boolean {
    return hasBrand(value, this);
  }

  readonly limitBytes: number;

  constructor(limitBytes: number) {
    super(`The request body is larger than ${limitBytes} bytes.`);
    stampBrands(this, new.target);
    this.name = "BodyTooLargeError";
    this.limitBytes = limitBytes;
  }
}

/** The declared Content-Length, or null when absent or not a plain number (the stream cap still applies). */
export function declaredContentLength(headers: Pick<Headers, "get">): number | null {
  const value = headers.get("content-length")?.trim();
  return value && /^\d+$/.test(value) ? Number(value) : null;
}

/**
 * The body's bytes, reading no further than `limitBytes` plus one chunk: past the limit the stream is cancelled and
 * BodyTooLargeError thrown. Null when the request has no body.
 */
export async function readBodyWithLimit(body: ReadableStream<Uint8Array> | null, limitBytes: number): Promise<Uint8Array | null> {
  if (!body) return null;
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limitBytes) {
      await reader.cancel().catch(() => {});
      throw new BodyTooLargeError(limitBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * Bodies are JSON: the media type `application/json` exactly (any case), with optional parameters; a `charset`, if
 * given, must be UTF-8 (RFC 8259 §8.1). Look-alikes (`application/jsonp`, `application/json-seq`) and structured
 * suffixes (`application/merge-patch+json`, `application/vnd.api+json`) are refused: they promise semantics this API
 * does not implement.
 */
export function isJsonContentType(value: string | null): boolean {
  if (!value) return false;
  const [mediaType, ...parameters] = value.split(";");
  if (mediaType!.trim().toLowerCase() !== "application/json") return false;
  for (const parameter of parameters) {
    const [name, rawValue = ""] = parameter.split("=", 2);
    if (name!.trim().toLowerCase() !== "charset") continue;
    const charset = rawValue.trim().replace(/^"(.*)"$/, "$1").toLowerCase();
    if (charset !== "utf-8" && charset !== "utf8") return false;
  }
  return true;
}
