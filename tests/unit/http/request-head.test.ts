import { describe, expect, it } from "vitest";
import { formatBytes, isJsonContentType } from "@/server/http/request-body";
import { canonicalPath, clientAddress, hasDotSegments, isValidHostHeader } from "@/server/http/request-head";

describe("isValidHostHeader", () => {
  it("accepts host names and IP literals with an optional port", () => {
    for (const host of ["localhost", "localhost:3000", "api.example.com", "127.0.0.1:8080", "[::1]", "[::1]:3000", "app_1:3000", "xn--bcher-kva.example:0", "h:65535"]) {
      expect(isValidHostHeader(host), host).toBe(true);
    }
  });

  it("refuses spaces, userinfo, paths, empty values, bad IPv6 and ports past 65535", () => {
    for (const host of ["a b", "user@evil.example", "user:pw@host", "", " ", "host/path", "host:99999", "host:65536", "host:", "[zz::1]", "[::1", "host:12a", "a\tb"]) {
      expect(isValidHostHeader(host), JSON.stringify(host)).toBe(false);
    }
  });
});

describe("hasDotSegments", () => {
  it("finds . and .. segments, plain or percent-encoded, and ignores the query", () => {
    for (const path of ["/api/v1/../x", "/./x", "/a/..", "/a/%2e%2e/b", "/a/%2E./b", "/a/.%2e", "/a/%2e/b"]) expect(hasDotSegments(path), path).toBe(true);
    for (const path of ["/api/v1/agents/agent.01x", "/a/...", "/a/..b", "/a/b.", "/a?x=/../", "/"]) expect(hasDotSegments(path), path).toBe(false);
  });
});

describe("canonicalPath", () => {
  it("decodes each segment once and re-encodes it, keeping encoded slashes inside their segment", () => {
    expect(canonicalPath("/agents/%61gent.01abc/outcomes")).toBe("/agents/agent.01abc/outcomes");
    expect(canonicalPath("/agents/a%2fb/outcomes")).toBe("/agents/a%2Fb/outcomes");
    expect(canonicalPath("/agents/%00/x")).toBe("/agents/%00/x");
    expect(canonicalPath("/agents/%25252F")).toBe("/agents/%25252F");
    expect(canonicalPath("/agents/caf%C3%A9")).toBe("/agents/caf%C3%A9");
  });

  it("is null for percent-encoding that is not UTF-8", () => {
    for (const path of ["/a/%E0%A4%A", "/a/%ZZ", "/a/%", "/a/%C0%80", "/a/%ED%A0%80"]) expect(canonicalPath(path), path).toBeNull();
  });
});

describe("clientAddress", () => {
  it("is the socket's peer unless proxies are trusted", () => {
    expect(clientAddress({ socketAddress: "203.0.113.9", forwardedFor: "1.2.3.4", trustedProxyHops: 0 })).toBe("203.0.113.9");
    expect(clientAddress({ socketAddress: "::ffff:203.0.113.9", trustedProxyHops: 0 })).toBe("203.0.113.9");
    expect(clientAddress({ socketAddress: null, forwardedFor: "1.2.3.4", trustedProxyHops: 0 })).toBe("unknown");
  });

  it("takes the address the outermost trusted proxy saw", () => {
    const forwardedFor = "6.6.6.6, 198.51.100.4, 10.0.0.3";
    expect(clientAddress({ socketAddress: "10.0.0.2", forwardedFor, trustedProxyHops: 1 })).toBe("10.0.0.3");
    expect(clientAddress({ socketAddress: "10.0.0.2", forwardedFor, trustedProxyHops: 2 })).toBe("198.51.100.4");
    expect(clientAddress({ socketAddress: "10.0.0.2", forwardedFor: "", trustedProxyHops: 1 })).toBe("10.0.0.2");
    expect(clientAddress({ socketAddress: "10.0.0.2", forwardedFor: "1.1.1.1", trustedProxyHops: 5 })).toBe("1.1.1.1");
  });

  it("groups IPv6 clients by /64", () => {
    const a = clientAddress({ socketAddress: "2001:db8:1:2:aaaa::1", trustedProxyHops: 0 });
    expect(a).toBe("2001:db8:1:2::/64");
    expect(clientAddress({ socketAddress: "2001:db8:1:2:ffff::9", trustedProxyHops: 0 })).toBe(a);
    expect(clientAddress({ socketAddress: "2001:db8:1:3::1", trustedProxyHops: 0 })).not.toBe(a);
  });
});

describe("isJsonContentType", () => {
  it("is application/json exactly, parameters allowed, charset only UTF-8", () => {
    for (const type of ["application/json", "APPLICATION/JSON", "application/json; charset=utf-8", "application/json;charset=UTF8", "application/json; foo=bar"]) {
      expect(isJsonContentType(type), type).toBe(true);
    }
    for (const type of [null, "", "application/jsonp", "application/json-seq", "application/problem+json", "text/json", "application/json; charset=latin1", "application/json5"]) {
      expect(isJsonContentType(type), String(type)).toBe(false);
    }
  });
});

describe("formatBytes", () => {
  it("names the default limits the way the docs do", () => {
    expect(formatBytes(256 * 1024)).toBe("256 kB");
    expect(formatBytes(2 * 1024 * 1024)).toBe("2 MB");
    expect(formatBytes(1000)).toBe("1000 bytes");
  });
});
