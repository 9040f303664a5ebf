import { describe, expect, it } from "vitest";
import { consumeRateLimit, createRateLimiter } from "@/server/http/rate-limit";
import { createTestOrganization } from "../factories";
import { apiClient } from "../helpers/api";
import { useTestDb } from "../helpers/db";

const db = useTestDb();
const api = apiClient(db);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("rate limit (10 requests per second per key)", () => {
  it("refuses the 11th request of a burst with 429 RATE_LIMITED and the rate-limit headers", async () => {
    const { apiKey } = await createTestOrganization(db);
    const results = await Promise.all(Array.from({ length: 15 }, () => api("/credits/usage", { key: apiKey })));
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

  it("shares one limit between instances with the Postgres store", async () => {
    const instanceA = createRateLimiter("postgres", db);
    const instanceB = createRateLimiter("postgres", db);
    const key = `shared-${Date.now()}-${Math.random()}`;
    const decisions = [];
    for (let i = 0; i < 6; i++) decisions.push(await consumeRateLimit(key, instanceA));
    for (let i = 0; i < 6; i++) decisions.push(await consumeRateLimit(key, instanceB));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    expect(decisions.at(-1)!.allowed).toBe(false);
    const otherKey = await consumeRateLimit(`${key}-other`, instanceB);
    expect(otherKey.allowed).toBe(true);
  });
});
