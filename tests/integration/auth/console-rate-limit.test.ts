import { NextRequest } from "next/server";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { GET as authGet } from "@/app/api/auth/[...nextauth]/route";
import { consumeConsoleRateLimit } from "@/server/http/console-rate-limit";
import { createPostgresRateLimitStore } from "@/server/http/rate-limit";
import { createTestOrganization } from "../../factories";
import { useTestDb } from "../../helpers/db";
import { APP_URL, signInWithCredentials, trpcWithCookie, useNextAuthEnv } from "../../helpers/next-auth";
import { createPasswordUser } from "./helpers";

/**
 * The console's endpoint and the sign-in routes are rate-limited like `/api/v1`: per signed-in person on `/api/trpc`
 * (CONSOLE_SESSION_RATE_LIMIT, 10 per rolling second), per client address without a session and on `/api/auth/*`
 * (API_UNAUTHENTICATED_RATE_LIMIT, 20), through the real route handlers.
 */
const db = useTestDb();

beforeEach(() => {
  useNextAuthEnv();
  return () => vi.unstubAllEnvs();
});

const randomAddress = () => `198.51.100.${Math.floor(Math.random() * 250) + 1}`;

async function signedIn() {
  const { organization } = await createTestOrganization(db);
  const user = await createPasswordUser(db, { password: "a password", organizationId: organization.id });
  const attempt = await signInWithCredentials({ email: user.email, password: "a password", ip: randomAddress() });
  return attempt.sessionCookie!;
}

describe("/api/trpc rate limits", () => {
  it("answers the 11th request within a second of one person with 429, Retry-After and tRPC's error shape; another person is unaffected", async () => {
    const cookie = await signedIn();
    const other = await signedIn();
    // Sent together, so that they fall in one rolling second even on a loaded machine (one after another, eleven
    // queries could take longer than that): whichever comes last is refused.
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 11 }, () => trpcWithCookie("organizations.listMine", cookie)));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(answers.map((answer) => answer.status).sort()).toEqual([...Array(10).fill(200), 429]);
    const last = answers.find((answer) => answer.status === 429);
    expect(Number(last!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(last!.headers.get("ratelimit-policy")).toBe("10;w=1");
    expect(last!.body.error?.data).toMatchObject({ appCode: "RATE_LIMITED", message: expect.stringContaining("More than 10 console requests per second") });
    expect((await trpcWithCookie("organizations.listMine", other)).status).toBe(200);
  });

  it("limits requests without a session per client address (20 per second), whatever session cookie they make up", async () => {
    const address = randomAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) {
      const res = await trpcWithCookie("organizations.listMine", i % 2 ? `next-auth.session-token=made-up-${i}` : null, { headers: { "x-forwarded-for": address } });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([...Array(20).fill(401), 429]);
    // Another address is unaffected.
    expect((await trpcWithCookie("organizations.listMine", null, { headers: { "x-forwarded-for": randomAddress() } })).status).toBe(401);
  });

  it("answers a batch of more than 50 calls with 400 naming the limit (also without the production server in front)", async () => {
    const cookie = await signedIn();
    const path = Array.from({ length: 51 }, () => "organizations.listMine").join(",");
    const res = await trpcWithCookie(`${path}?batch=1`, cookie);
    expect(res.status).toBe(400);
    expect(res.body.error?.data?.message).toBe("A batched request may hold at most 50 procedure calls; this one holds 51. Split it into several requests.");
  });
});

describe("sign-in route rate limit", () => {
  it("answers the 21st request within a second from one address with 429 and the sign-in page's error URL", async () => {
    const address = randomAddress();
    // Twenty requests without credentials from the address (NextAuth itself needs Next's request scope to run here).
    for (let i = 0; i < 20; i++) expect((await consumeConsoleRateLimit({ address })).allowed).toBe(true);
    const res = await authGet(new NextRequest(`${APP_URL}/api/auth/callback/credentials`, { headers: { "x-forwarded-for": address } }), {
      params: Promise.resolve({ nextauth: ["callback", "credentials"] }),
    });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(await res.json()).toEqual({ error: "RATE_LIMITED", message: expect.any(String), url: `${APP_URL}/sign-in?error=RateLimited` });
  });
});

describe("shared across instances (RATE_LIMIT_STORE=postgres)", () => {
  it("counts one person's requests on two instances together", async () => {
    const instances = [createPostgresRateLimitStore(db), createPostgresRateLimitStore(db)];
    const userId = `user.${Math.random().toString(36).slice(2)}`;
    const nowMs = Date.now();
    const allowed: boolean[] = [];
    for (let i = 0; i < 11; i++) allowed.push((await consumeConsoleRateLimit({ userId }, { identityStore: instances[i % 2], nowMs: nowMs + i })).allowed);
    expect(allowed).toEqual([...Array(10).fill(true), false]);
  });
});
