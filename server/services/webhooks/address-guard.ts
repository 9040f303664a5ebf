import dns from "node:dns";
import net from "node:net";
import ipaddr from "ipaddr.js";
import { getConfig } from "@/server/config/env";
import { isEmbeddedMode } from "@/server/config/settings";

/**
 * Which destination addresses webhook URLs may reach (the SSRF guard).
 * - production: public unicast addresses only. Loopback, private (RFC 1918, fc00::/7), link-local (incl. the
 *   169.254.169.254 cloud metadata address), CGNAT (100.64/10, incl. 100.100.100.200), multicast and reserved
 *   addresses are refused, and so are IPv6 forms that embed an IPv4 address unless it is global (`classifyAddress`).
 * - embedded/dev: loopback is allowed as well, so receivers on this machine work.
 * - `allowPrivateNetworks` (WEBHOOK_ALLOW_PRIVATE_NETWORKS=1): also private/unique-local ranges, for self-hosters
 *   whose receivers live on an internal network. Link-local (metadata) and CGNAT stay refused in every mode.
 */
export type AddressPolicy = { allowLoopback: boolean; allowPrivateNetworks: boolean };

export const PRODUCTION_ADDRESS_POLICY: AddressPolicy = { allowLoopback: false, allowPrivateNetworks: false };
export const LOOPBACK_ADDRESS_POLICY: AddressPolicy = { allowLoopback: true, allowPrivateNetworks: false };

export function defaultAddressPolicy(): AddressPolicy {
  const allowPrivateNetworks = getConfig().WEBHOOK_ALLOW_PRIVATE_NETWORKS;
  return { allowLoopback: isEmbeddedMode() || allowPrivateNetworks, allowPrivateNetworks };
}

export class BlockedAddressError extends Error {
  readonly address: string;
  readonly range: string;
  constructor(host: string, address: string, range: string) {
    const kind = describeRange(range);
    const article = /^[aeiou]/i.test(kind) ? "an" : "a";
    super(
      address === host
        ? `Refused: ${address} is ${article} ${kind} address; webhooks may only reach public addresses.`
        : `Refused: ${host} resolves to ${address}, ${article} ${kind} address; webhooks may only reach public addresses.`,
    );
    this.name = "BlockedAddressError";
    this.address = address;
    this.range = range;
  }
}

function describeRange(range: string): string {
  const names: Record<string, string> = {
    loopback: "loopback",
    private: "private-network",
    uniqueLocal: "private-network (unique local)",
    linkLocal: "link-local / cloud-metadata",
    carrierGradeNat: "carrier-grade NAT",
    unspecified: "unspecified",
    ipv4Compatible: "IPv4-compatible IPv6 (deprecated, embedding an IPv4 address)",
    "6to4": "6to4 (IPv6 embedding an IPv4 address)",
    teredo: "Teredo (IPv6 embedding IPv4 addresses)",
    nat64LocalUse: "local-use NAT64 (IPv6 embedding an IPv4 address)",
    rfc6145: "IPv4-translated IPv6 (embedding an IPv4 address)",
  };
  if (range.startsWith("nat64:")) return `NAT64 (IPv6 embedding a ${describeRange(range.slice("nat64:".length))} IPv4 address)`;
  return names[range] ?? `reserved (${range})`;
}

const NAT64_WELL_KNOWN = ipaddr.parseCIDR("64:ff9b::/96");
const NAT64_LOCAL_USE = ipaddr.parseCIDR("64:ff9b:1::/48");

/** The IPv4 address in the last 32 bits of an IPv6 address. */
function lastIPv4(address: ipaddr.IPv6): ipaddr.IPv4 {
  const bytes = address.toByteArray();
  return new ipaddr.IPv4(bytes.slice(12, 16));
}

/**
 * The ipaddr.js range of an address (`unicast` = global, allowed). IPv6 forms that carry an IPv4 address:
 * - IPv4-mapped `::ffff:a.b.c.d`: the socket connects to a.b.c.d itself, so it is judged as that IPv4 address.
 * - NAT64 well-known prefix `64:ff9b::a.b.c.d` (RFC 6052): a translator connects to a.b.c.d, which must be global;
 *   otherwise `nat64:<range>`, refused in every mode (the translator's loopback or private network is not ours).
 * - IPv4-compatible `::a.b.c.d` (deprecated), 6to4 `2002::/16` (deprecated), Teredo `2001::/32`, local-use NAT64
 *   `64:ff9b:1::/48` and IPv4-translated `::ffff:0:a.b.c.d`: refused whatever they embed — relays or
 *   network-specific translators decide where they lead.
 */
export function classifyAddress(address: string): string {
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv4") return parsed.range();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range();
  if (v6.match(NAT64_LOCAL_USE)) return "nat64LocalUse";
  if (v6.match(NAT64_WELL_KNOWN)) {
    const embedded = lastIPv4(v6).range();
    return embedded === "unicast" ? "unicast" : `nat64:${embedded}`;
  }
  const range = v6.range();
  // ::/96 holds the IPv4-compatible form, besides :: (unspecified) and ::1 (loopback).
  if (range === "unicast" && v6.parts.slice(0, 6).every((part) => part === 0)) return "ipv4Compatible";
  return range;
}

/** Throws BlockedAddressError when the policy refuses this (resolved, literal) address. */
export function assertAddressAllowed(address: string, policy: AddressPolicy, host: string = address): void {
  const range = classifyAddress(address);
  if (range === "unicast") return;
  if (range === "loopback" && policy.allowLoopback) return;
  if ((range === "private" || range === "uniqueLocal") && policy.allowPrivateNetworks) return;
  throw new BlockedAddressError(host, address, range);
}

/** `[::1]` → `::1`: URL hostnames keep IPv6 brackets. */
export function bareHostname(hostname: string): string {
  return hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
}

export type LookupFunction = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

const systemLookup: LookupFunction = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/**
 * Resolves the host and checks every address it resolves to (a host with one public and one private answer is
 * refused: the connection could pick either). Used when an endpoint is saved; delivery re-checks at connect time.
 */
export async function assertHostAllowed(hostname: string, policy: AddressPolicy, lookup: LookupFunction = systemLookup) {
  const host = bareHostname(hostname);
  if (net.isIP(host)) {
    assertAddressAllowed(host, policy);
    return [host];
  }
  const answers = await lookup(host);
  if (answers.length === 0) throw new Error(`${host} does not resolve to any address.`);
  for (const answer of answers) assertAddressAllowed(answer.address, policy, host);
  return answers.map((answer) => answer.address);
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http(s).request that checks the address the socket will actually connect to, so a DNS answer
 * that changes between save and delivery (DNS rebinding) cannot reach a refused address.
 */
export function guardedLookup(policy: AddressPolicy) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => {
    dns.lookup(hostname, { ...options, all: true, verbatim: true }, (error, addresses) => {
      if (error) return callback(error, options.all ? [] : "", undefined);
      try {
        for (const entry of addresses) assertAddressAllowed(entry.address, policy, hostname);
      } catch (blocked) {
        return callback(blocked as NodeJS.ErrnoException, options.all ? [] : "", undefined);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: "ENOTFOUND" }), "", undefined);
      callback(null, first.address, first.family);
    });
  };
}
