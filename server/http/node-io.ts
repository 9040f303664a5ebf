import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { randomUUID } from "node:crypto";
import type { Duplex } from "node:stream";
import { ERROR_TABLE, type AppErrorCode } from "@/server/errors";
import { getLogger } from "@/server/observability/logger";
import { hasDotSegments, isValidHostHeader } from "./request-head";

/**
 * Answering on Node's own request and response, for the production server (node-server.ts) and its fast paths
 * (node-fast-paths.ts): refusals from the request head, errors written on the raw socket before a request exists,
 * the lingering close after an answer sent before the body was read, and `Expect: 100-continue`.
 */

/** Methods any part of the app answers; TRACE, CONNECT and the WebDAV verbs Node's parser knows are 405 here. */
export const SERVED_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** An unread body up to this size is drained so the connection can be reused; a larger or unknown one closes it. */
const DRAIN_UNREAD_BODY_BYTES = 64 * 1024;
/**
 * After answering early, what the client is still sending is read and dropped for at most this long / this much.
 * 8 MB because a loopback or LAN socket buffers several MB before a busy client reads the answer (1 MB reset some
 * clients under load before they saw their 413); dropped bytes are never held.
 */
const LINGER_MS = 2_000;
const LINGER_BYTES = 8 * 1024 * 1024;

export type Refusal = { code: AppErrorCode; message: string; headers?: Record<string, string> };

/**
 * The request line and Host, for every path. The absolute form (`GET http://host/path`) is reduced to its path:
 * the app's own URLs come from the configured base URL, so no host a client names ends up in a redirect.
 */
export function checkRequestHead(req: IncomingMessage): Refusal | null {
  const method = req.method ?? "";
  if (!SERVED_METHODS.has(method)) {
    return { code: "METHOD_NOT_ALLOWED", message: `Method ${method} is not allowed.`, headers: { Allow: [...SERVED_METHODS].join(", ") } };
  }
  const host = req.headers.host;
  if (host !== undefined && !isValidHostHeader(host)) return { code: "INVALID_REQUEST", message: "The Host header is not a valid host[:port]." };
  let target = req.url ?? "";
  const absolute = /^https?:\/\/[^/?#]*/i.exec(target);
  if (absolute) {
    target = target.slice(absolute[0].length) || "/";
    if (!target.startsWith("/")) target = `/${target}`;
    req.url = target;
  }
  if (!target.startsWith("/")) {
    return { code: "INVALID_REQUEST", message: "The request target must be a path (origin form)." };
  }
  if (hasDotSegments(target)) return { code: "INVALID_REQUEST", message: "The request path must not contain '.' or '..' segments." };
  return null;
}

export function sendError(req: IncomingMessage, res: ServerResponse, refusal: Refusal) {
  const body = JSON.stringify({ error: refusal.code, message: refusal.message });
  res.statusCode = ERROR_TABLE[refusal.code].status;
  for (const [key, value] of Object.entries(refusal.headers ?? {})) res.setHeader(key, value);
  res.setHeader("content-type", "application/json");
  res.setHeader("content-length", Buffer.byteLength(body));
  closeIfBodyUnread(req, res);
  res.end(req.method === "HEAD" ? undefined : body);
}

/** What Node's parser refuses before a request exists (malformed request line or headers, unknown method). */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex) {
  if (error.code === "ECONNRESET" || error.code === "ERR_HTTP_REQUEST_TIMEOUT" || !socket.writable) {
    socket.destroy();
    return;
  }
  if (error.code === "HPE_INVALID_METHOD") writeRawError(socket, "METHOD_NOT_ALLOWED", "Unknown request method.");
  else writeRawError(socket, "INVALID_REQUEST", error.code === "HPE_HEADER_OVERFLOW" ? "The request headers are too large." : "Malformed HTTP request.");
}

export function writeRawError(socket: Duplex, code: AppErrorCode, message: string) {
  const body = JSON.stringify({ error: code, message });
  const status = ERROR_TABLE[code].status;
  const reqId = randomUUID();
  getLogger("http").info({ route: "{malformed}", status, reqId }, "request refused before parsing");
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${reqId}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * A response sent before the body was read (refused from the headers, or over the limit while reading) ends the
 * connection after it instead of reading the rest, which Node would otherwise do to keep the connection alive.
 * The close lingers: a plain close with unread bytes pending makes the kernel reset the connection, which can destroy
 * the answer before the client reads it — so the answer is followed by FIN, and what the client still sends is
 * dropped for a moment (bounded by LINGER_MS and LINGER_BYTES) before the socket is destroyed. Memory stays flat
 * either way. A small declared body is drained instead (Node's default), so keep-alive survives e.g. a 401.
 * No `Connection: close` header: Node would then destroy the socket right after the answer, without lingering.
 */
export function closeIfBodyUnread(req: IncomingMessage, res: ServerResponse) {
  if (req.complete) return;
  const chunked = req.headers["transfer-encoding"] !== undefined;
  const length = Number(req.headers["content-length"] ?? 0);
  if (!chunked && length === 0) return;
  if (!chunked && length <= DRAIN_UNREAD_BODY_BYTES && !req.readableDidRead) return;
  res.once("finish", () => {
    const socket = req.socket;
    const destroy = () => socket.destroy();
    const timer = setTimeout(destroy, LINGER_MS);
    timer.unref();
    socket.once("close", () => clearTimeout(timer));
    let dropped = 0;
    req.on("data", (chunk: Buffer) => {
      dropped += chunk.byteLength;
      if (dropped > LINGER_BYTES) destroy();
    });
    req.once("end", destroy);
    req.resume();
    socket.end();
  });
}

export function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

export function expectsContinue(req: IncomingMessage): boolean {
  return (req.headers.expect ?? "").toLowerCase() === "100-continue";
}
