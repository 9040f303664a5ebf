import { afterEach, describe, expect, it } from "vitest";
import {
  API_KEY_POLICY,
  consumeRateLimit,
  createMemoryRateLimitStore,
  createPostgresRateLimitStore,
  type RateLimitStore,
} from "@/server/http/rate-limit";
import { createTestOrganization } from "../factories";
import { apiClient } from "../helpers/api";
import { useTestDb } from "../helpers/db";

const db = useTestDb();
const api = apiClient(db);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const bogusKey = () => `ock_${Array.from({ length: 40 }, () => "abcdefghijklmnopqrstuvwxyz0123456789"[Math.floor(Math.random() * 36)]).join("")}`;

describe("rate limit (10 requests per rolling second per key)", () => {
  it("refuses the 11th request of a burst with 429 RATE_LIMITED and the rate-limit headers", async () => {
    const { apiKey } = await createTestOrganization(db);
    // One instant for the whole burst: on a loaded machine 15 concurrent requests can take longer than a second to
    // reach the limiter, and a rolling window then rightly admits more than 10.
    const instant = Date.now();
    const burst = apiClient(db, { rateLimits: { keyStore: createMemoryRateLimitStore(), nowMs: () => instant } });
    const results = await Promise.all(Array.from({ length: 15 }, () => burst("/credits/usage", { key: apiKey })));
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok.length).toBe(10);
    expect(limited.length).toBe(5);
    const refused = limited[0]!;
    expect(refused.body).toEqual({ error: "RATE_LIMITED", message: expect.any(String) });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get("ratelimit-policy")).toBe("10;w=1");
    expect(refused.headers.get("ratelimit")).toMatch(/^limit=10, remaining=0, reset=\d+$/);
    expect(ok[0]!.headers.get("ratelimit")).toMatch(/^limit=10, remaining=\d, reset=\d+$/);
  });

  it("keeps keys independent", async () => {
    const first = await createTestOrganization(db);
    const second = await createTestOrganization(db);
    await Promise.all(Array.from({ length: 12 }, () => api("/credits/usage", { key: first.apiKey })));
    const other = await api("/credits/usage", { key: second.apiKey });
    expect(other.status).toBe(200);
  });

  it("never refuses a client pacing itself at 8 requests per second", async () => {
    const { apiKey } = await createTestOrganization(db);
    const statuses: number[] = [];
    for (let i = 0; i < 24; i++) {
      statuses.push((await api("/credits/usage", { key: apiKey })).status);
      await sleep(125);
    }
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });

  for (const store of ["memory", "postgres"] as const) {
    it(`holds 10 per rolling second across a one-second boundary (${store} store)`, async () => {
      const { apiKey } = await createTestOrganization(db);
      const keyStore: RateLimitStore = store === "postgres" ? createPostgresRateLimitStore(db) : createMemoryRateLimitStore();
      // 100 ms before a whole second: a fixed one-second window would let 5 + 10 through within 150 ms here.
      const start = Math.floor(Date.now() / 1000) * 1000 + 900;
      let clock = start;
      const limited = apiClient(db, { rateLimits: { keyStore, nowMs: () => clock } });
      const at = async (ms: number, count: number) => {
        clock = start + ms;
        const results = [];
        for (let i = 0; i < count; i++) results.push(await limited("/credits/usage", { key: apiKey }));
        return results;
      };

      const first = await at(0, 5);
      const second = await at(150, 5); // the next whole second has begun
      expect([...first, ...second].map((r) => r.status)).toEqual(Array(10).fill(200));
      expect(second.at(-1)!.headers.get("ratelimit")).toBe("limit=10, remaining=0, reset=1");

      const eleventh = (await at(160, 1))[0]!;
      expect(eleventh.status).toBe(429);
      expect(eleventh.body).toEqual({ error: "RATE_LIMITED", message: expect.any(String) });
      expect(eleventh.headers.get("retry-after")).toBe("1");
      expect((await at(999, 1))[0]!.status).toBe(429);

      // One second after the first five they leave the window: exactly five more fit, not ten.
      const later = await at(1000, 6);
      expect(later.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429]);
      // And the ones at +150 ms still count until +1150 ms.
      expect((await at(1149, 1))[0]!.status).toBe(429);
      expect((await at(1150, 1))[0]!.status).toBe(200);
    });
  }

  it("shares one limit between instances with the Postgres store, also under concurrency", async () => {
    const instanceA = createPostgresRateLimitStore(db);
    const instanceB = createPostgresRateLimitStore(db);
    const key = `shared-${Date.now()}-${Math.random()}`;
    const decisions = [];
    for (let i = 0; i < 6; i++) decisions.push(await consumeRateLimit(instanceA, key, API_KEY_POLICY));
    for (let i = 0; i < 6; i++) decisions.push(await consumeRateLimit(instanceB, key, API_KEY_POLICY));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    expect(decisions.at(-1)!.allowed).toBe(false);
    expect((await consumeRateLimit(instanceB, `${key}-other`, API_KEY_POLICY)).allowed).toBe(true);

    const burstKey = `${key}-burst`;
    const now = Date.now();
    const burst = await Promise.all(
      Array.from({ length: 30 }, (_, i) => consumeRateLimit(i % 2 ? instanceA : instanceB, burstKey, API_KEY_POLICY, now + (i % 3))),
    );
    expect(burst.filter((d) => d.allowed)).toHaveLength(10);
  });
});

describe("requests without a valid key: limited per client address", () => {
  afterEach(() => {
    delete process.env.TRUST_PROXY;
  });

  /** Fresh limiters frozen at one instant, so a burst counts as one burst however slowly a loaded machine runs it. */
  const frozenApi = () => {
    const instant = Date.now();
    return apiClient(db, { rateLimits: { keyStore: createMemoryRateLimitStore(), addressStore: createMemoryRateLimitStore(), nowMs: () => instant } });
  };

  it("answers 20 keyless requests per second from one address, then 429 with the address policy's headers", async () => {
    const api = frozenApi();
    const results = await Promise.all(Array.from({ length: 40 }, () => api("/credits/usage", { socketAddress: "203.0.113.7" })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    const refused = results.find((r) => r.status === 429)!;
    expect(refused.body).toEqual({ error: "RATE_LIMITED", message: expect.stringContaining("without a valid API key") });
    expect(refused.headers.get("ratelimit-policy")).toBe("20;w=1");
    expect(refused.headers.get("ratelimit")).toMatch(/^limit=20, remaining=0, reset=1$/);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(results.find((r) => r.status === 401)!.headers.get("ratelimit-policy")).toBe("20;w=1");
    // Another address is not affected.
    expect((await api("/credits/usage", { socketAddress: "203.0.113.8" })).status).toBe(401);
  });

  it("counts made-up keys against the address (one key each does not escape), and valid keys against the key", async () => {
    const { apiKey } = await createTestOrganization(db);
    const api = frozenApi();
    const bad = await Promise.all(Array.from({ length: 25 }, () => api("/credits/usage", { key: bogusKey(), socketAddress: "203.0.113.20" })));
    expect(bad.filter((r) => r.status === 401).map((r) => r.body.error)).toEqual(Array(20).fill("INVALID_API_KEY"));
    expect(bad.filter((r) => r.status === 429)).toHaveLength(5);
    // The exhausted address still serves a valid key: its requests are limited per key, not per address.
    const good = await api("/credits/usage", { key: apiKey, socketAddress: "203.0.113.20" });
    expect(good.status).toBe(200);
    expect(good.headers.get("ratelimit-policy")).toBe("10;w=1");
  });

  it("ignores X-Forwarded-For unless TRUST_PROXY says a proxy sets it", async () => {
    const api = frozenApi();
    const spoofed = await Promise.all(
      Array.from({ length: 25 }, (_, i) => api("/credits/usage", { socketAddress: "203.0.113.30", headers: { "x-forwarded-for": `192.0.2.${i}` } })),
    );
    expect(spoofed.filter((r) => r.status === 429)).toHaveLength(5);

    process.env.TRUST_PROXY = "1";
    // Behind one proxy (socket = the proxy), the last X-Forwarded-For entry is the client; earlier ones are the client's word.
    const proxied = await Promise.all(
      Array.from({ length: 25 }, (_, i) => api("/credits/usage", { socketAddress: "10.0.0.2", headers: { "x-forwarded-for": `6.6.6.6, 192.0.2.${100 + i}` } })),
    );
    expect(proxied.filter((r) => r.status === 429)).toHaveLength(0);
    const oneClient = await Promise.all(
      Array.from({ length: 25 }, (_, i) => api("/credits/usage", { socketAddress: "10.0.0.2", headers: { "x-forwarded-for": `198.51.100.${i}, 192.0.2.99` } })),
    );
    expect(oneClient.filter((r) => r.status === 429)).toHaveLength(5);
  });
});
