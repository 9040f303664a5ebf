import ipaddr from "ipaddr.js";

/**
 * Checks of a request's line and headers made before anything else looks at it, shared by the Node server
 * (every request) and the `/api/v1` handler (fetch Requests, e.g. through the Next route).
 */

const HOST_PATTERN = /^(?:\[(?<ip6>[0-9A-Fa-f:.]+)\]|(?<name>[A-Za-z0-9._~!$&'()*+,;=%-]+))(?::(?<port>\d{1,5}))?$/;

/**
 * RFC 9110 §7.2 / RFC 9112 §3.2: a host name or IP literal with an optional port 0–65535. No userinfo (`user@`),
 * no spaces or path, not empty. The Host value is never used to build URLs (the configured base URL is);
 * a malformed one is a 400 as the RFC asks.
 */
export function isValidHostHeader(host: string): boolean {
  const match = HOST_PATTERN.exec(host);
  if (!match) return false;
  if (match.groups?.ip6 && !ipaddr.IPv6.isValid(match.groups.ip6)) return false;
  const port = match.groups?.port;
  return port === undefined || Number(port) <= 65_535;
}

const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/** `.` or `..` path segments, also percent-encoded: a raw request-target that would climb out of its prefix. */
export function hasDotSegments(rawPath: string): boolean {
  const path = rawPath.split(/[?#]/, 1)[0]!;
  return path.split("/").some((segment) => DOT_SEGMENT.test(segment));
}

/**
 * Every path segment percent-decoded once and re-encoded with encodeURIComponent, so `agent.%41`, `agent.A` and
 * a lowercase `%2f` all reach a procedure as the same string whatever the method (GET, HEAD), and a decoded NUL or
 * slash stays an inert `%00` / `%2F` inside its segment. Null when the path is not valid percent-encoded UTF-8.
 */
export function canonicalPath(pathname: string): string | null {
  try {
    return pathname
      .split("/")
      .map((segment) => encodeURIComponent(decodeURIComponent(segment)))
      .join("/");
  } catch {
    return null;
  }
}

export type ClientAddressSource = {
  /** The TCP peer; absent when the request did not come through our Node server (Next route). */
  socketAddress?: string | null;
  forwardedFor?: string | null;
  /** Proxies to believe in `X-Forwarded-For` (`TRUST_PROXY`). */
  trustedProxyHops: number;
};

/**
 * The address rate limits count against: the socket's peer, or with `TRUST_PROXY=N` the address the N-th proxy
 * from us saw in `X-Forwarded-For`. IPv4-mapped IPv6 is unwrapped; IPv6 clients are grouped by /64, the block one
 * host usually owns. Without a socket and without trusted proxies the address is unknown and shared ("unknown").
 */
export function clientAddress(source: ClientAddressSource): string {
  const chain = (source.forwardedFor ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  const hops = [...chain, ...(source.socketAddress ? [source.socketAddress] : [])];
  let address: string | undefined;
  if (source.trustedProxyHops > 0) address = hops[Math.max(0, hops.length - 1 - source.trustedProxyHops)];
  else address = source.socketAddress ?? undefined;
  return address ? normalizeAddress(address) : "unknown";
}

function normalizeAddress(address: string): string {
  if (!ipaddr.isValid(address)) return address.slice(0, 64);
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(":")}::/64`;
}
