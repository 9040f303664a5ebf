import type { IncomingMessage } from "node:http";
import { trustProxy } from "@/server/config/settings";

/**
 * Trust boundary for the client address. Unless `TRUST_PROXY` is set, whatever `X-Forwarded-For` a client sent is
 * replaced by the TCP peer's address before any handler (Next.js or `/api/v1`) sees the request; behind a proxy
 * (`TRUST_PROXY=1`) the proxy's header is kept. Call once per request in the HTTP server.
 */
export function pinForwardedFor(req: IncomingMessage): void {
  if (trustProxy()) return;
  const peer = req.socket.remoteAddress;
  if (peer) req.headers["x-forwarded-for"] = peer;
  else delete req.headers["x-forwarded-for"];
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

/** The client address of a request as pinned above: the last `X-Forwarded-For` entry (the one our side added). */
export function clientIp(headers: HeaderSource | undefined): string {
  const raw = headers instanceof Headers ? headers.get("x-forwarded-for") : headers?.["x-forwarded-for"];
  const value = Array.isArray(raw) ? raw.at(-1) : raw;
  const last = value?.split(",").at(-1)?.trim();
  return last || "unknown";
}
