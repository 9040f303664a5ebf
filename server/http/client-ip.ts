import type { IncomingMessage } from "node:http";
import { trustedProxyHops } from "@/server/config/settings";
import { clientAddress } from "./request-head";

/**
 * Trust boundary for the client address of requests handled by Next.js (which sees headers, not the socket): the
 * HTTP server replaces `X-Forwarded-For` with the one address `clientAddress` resolves — the TCP peer, or with
 * `TRUST_PROXY` the entry that many proxies back — so whatever a client wrote there itself is never believed.
 */
export function pinForwardedFor(req: IncomingMessage): void {
  const forwarded = req.headers["x-forwarded-for"];
  req.headers["x-forwarded-for"] = clientAddress({
    socketAddress: req.socket.remoteAddress,
    forwardedFor: Array.isArray(forwarded) ? forwarded.join(",") : (forwarded ?? null),
    trustedProxyHops: trustedProxyHops(),
  });
}

type HeaderSource = { get: (name: string) => string | null } | Record<string, string | string[] | undefined>;

/** The client address of a request pinned above (the last `X-Forwarded-For` entry), for sign-in throttling. */
export function clientIp(headers: HeaderSource | undefined): string {
  const raw = typeof headers?.get === "function" ? headers.get("x-forwarded-for") : (headers as Record<string, string | string[] | undefined> | undefined)?.["x-forwarded-for"];
  const value = Array.isArray(raw) ? raw.at(-1) : raw;
  const last = value?.split(",").at(-1)?.trim();
  return last || "unknown";
}
