import { appBaseUrl, inngestBodyLimitBytes, otherBodyLimitBytes, trpcBodyLimitBytes } from "@/server/config/settings";
import { ERROR_TABLE, type AppErrorCode } from "@/server/errors";
import { formatBytes } from "./request-body";
import { TRPC_PREFIX, trpcBatchRefusal, trpcErrorBody } from "./trpc-errors";

/**
 * The edge of every request the production server hands to Next.js (everything but `/api/v1`, the operator endpoints
 * and signed recording links, which the server answers itself): checked from the request line and headers alone,
 * before Next.js reads a byte of the body, and answered in the surface's own error shape.
 *
 * - The path must be valid percent-encoded UTF-8 without control characters once decoded: Next.js answered 500 to
 *   `/invite/%E0%A4%A` or `/%C0%AF`, and pages passed a decoded NUL on to their queries (`/calls/%00`, `/%00`). Pages
 *   get the console's 404 page, the API routes a 400.
 * - A body is limited by its declared `Content-Length` (413 beyond the surface's limit). A body without one (chunked)
 *   is refused with 411: Next.js reads bodies in full, so only a declared length can be checked before reading (every
 *   browser, the Inngest executor and Twilio declare it).
 * - A console batch over MAX_TRPC_BATCH_SIZE calls is a 400 naming the limit.
 */

/**
 * - `trpc`: the console's endpoint; errors in tRPC's shape.
 * - `auth`: NextAuth's routes (sign-in, sign-out, session); `{error, message, url}`, `url` being the sign-in page with the
 *   error, which is what next-auth's client navigates to or reports.
 * - `inngest`: the Inngest executor's calls.
 * - `other`: voice provider callbacks, any other route, pages.
 */
export type NextSurface = "trpc" | "auth" | "inngest" | "other";

export function nextSurfaceOf(pathname: string): NextSurface {
  if (pathname === TRPC_PREFIX || pathname.startsWith(`${TRPC_PREFIX}/`)) return "trpc";
  if (pathname === "/api/auth" || pathname.startsWith("/api/auth/")) return "auth";
  if (pathname === "/api/inngest" || pathname.startsWith("/api/inngest/")) return "inngest";
  return "other";
}

/** The body limit of a surface, in bytes (TRPC_BODY_LIMIT_BYTES, INNGEST_BODY_LIMIT_BYTES, OTHER_BODY_LIMIT_BYTES). */
export function nextBodyLimitBytes(surface: NextSurface): number {
  if (surface === "trpc") return trpcBodyLimitBytes();
  if (surface === "inngest") return inngestBodyLimitBytes();
  return otherBodyLimitBytes();
}

/** A refusal: the page's 404 (pages), or an error answered in the surface's shape. */
export type NextRefusal = { notFoundPage: true } | { notFoundPage?: false; code: AppErrorCode; message: string; headers?: Record<string, string> };

export type NextRequestHead = { method: string; target: string; header: (name: string) => string | undefined };

export function checkNextRequest(req: NextRequestHead): NextRefusal | null {
  const queryAt = req.target.indexOf("?");
  const pathname = queryAt < 0 ? req.target : req.target.slice(0, queryAt);
  const surface = nextSurfaceOf(pathname);
  const limit = nextBodyLimitBytes(surface);
  if (req.header("transfer-encoding") !== undefined) {
    return { code: "LENGTH_REQUIRED", message: `Send the request body with a Content-Length (at most ${formatBytes(limit)} here).` };
  }
  const declared = req.header("content-length");
  if (declared !== undefined && (!/^\d+$/.test(declared.trim()) || Number(declared) > limit)) {
    return { code: "PAYLOAD_TOO_LARGE", message: `The request body is larger than this endpoint accepts (${formatBytes(limit)}, ${limit} bytes).` };
  }
  if (!isWellFormedPath(pathname)) {
    if (!pathname.startsWith("/api/")) return { notFoundPage: true };
    return { code: "INVALID_REQUEST", message: "The request path is not valid percent-encoded UTF-8, or holds control characters." };
  }
  if (surface === "trpc") return trpcBatchRefusal(req.target);
  return null;
}

// eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/** Every segment percent-decodes to UTF-8 (no broken or overlong sequences) without control characters. */
export function isWellFormedPath(pathname: string): boolean {
  try {
    return !CONTROL_CHARACTER.test(decodeURIComponent(pathname));
  } catch {
    return false;
  }
}

/** The answer to a refusal outside pages: status, headers and body in the surface's error shape. */
export function nextRefusalResponse(
  surface: NextSurface,
  refusal: { code: AppErrorCode; message: string; headers?: Record<string, string> },
): { status: number; headers: Record<string, string>; body: string } {
  const status = ERROR_TABLE[refusal.code].status;
  const headers = { "content-type": "application/json", ...refusal.headers };
  if (surface === "trpc") return { status, headers, body: trpcErrorBody(refusal.code, refusal.message) };
  if (surface === "auth") return { status, headers, body: JSON.stringify({ error: refusal.code, message: refusal.message, url: signInErrorUrl(refusal.code) }) };
  return { status, headers, body: JSON.stringify({ error: refusal.code, message: refusal.message }) };
}

/** The sign-in page showing the refusal: next-auth's client (signIn with redirect: false) reads `?error=` from it. */
export function signInErrorUrl(code: AppErrorCode): string {
  return new URL(`/sign-in?error=${code === "RATE_LIMITED" ? "RateLimited" : "RequestRefused"}`, appBaseUrl()).toString();
}
