import type { IncomingMessage } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { clientIp, pinForwardedFor } from "@/server/http/client-ip";

function request(forwardedFor: string | undefined, peer = "203.0.113.7") {
  return { headers: forwardedFor ? { "x-forwarded-for": forwardedFor } : {}, socket: { remoteAddress: peer } } as unknown as IncomingMessage;
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("client address", () => {
  it("replaces X-Forwarded-For with the resolved client address: the TCP peer, or with TRUST_PROXY the proxy's entry", () => {
    const spoofed = request("1.2.3.4");
    pinForwardedFor(spoofed);
    expect(clientIp(spoofed.headers)).toBe("203.0.113.7");

    vi.stubEnv("TRUST_PROXY", "1");
    const proxied = request("1.2.3.4, 198.51.100.9", "10.0.0.2");
    pinForwardedFor(proxied);
    // The entry our proxy appended (the last one), never one the client could have written first.
    expect(clientIp(proxied.headers)).toBe("198.51.100.9");
    expect(clientIp(new Headers({ "x-forwarded-for": "5.6.7.8" }))).toBe("5.6.7.8");
    expect(clientIp(undefined)).toBe("unknown");
  });
});
