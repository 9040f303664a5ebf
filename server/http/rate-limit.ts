import { lt, sql } from "drizzle-orm";
import { getDb, type Db } from "@/db";
import { apiRateLimitLogs } from "@/db/schema";
import { apiUnauthenticatedRateLimit, consoleSessionRateLimit, rateLimitStore } from "@/server/config/settings";
import { processSingleton } from "@/server/runtime/process-singleton";

/**
 * `/api/v1` rate limits as sliding logs: a request is allowed when fewer than `limit` requests of the same subject
 * were allowed in the `windowMs` before it, so no rolling second ever holds more than `limit` accepted requests
 * (a fixed one-second window lets 2 × limit through across a window boundary).
 *
 * Written here rather than taken from rate-limiter-flexible: its limiters are fixed windows (BurstyRateLimiter adds a
 * second fixed window, still not a rolling bound) and none of its stores keeps a sliding window in PostgreSQL. The
 * log holds at most `limit` timestamps per subject, so it is as small as a counter for limits of this size.
 */
export type RateLimitPolicy = { limit: number; windowMs: number };

/** Spec "Limits": 10 requests per rolling second per API key. */
export const API_KEY_POLICY: RateLimitPolicy = { limit: 10, windowMs: 1000 };

/**
 * Requests without credentials, per client address (`API_UNAUTHENTICATED_RATE_LIMIT`): to `/api/v1` without a valid
 * key, to `/api/trpc` without a session, to the sign-in routes. One budget per address for all of them.
 */
export function clientAddressPolicy(): RateLimitPolicy {
  return { limit: apiUnauthenticatedRateLimit(), windowMs: 1000 };
}

/** Console requests (`/api/trpc`) of one signed-in person, all sessions together; `CONSOLE_SESSION_RATE_LIMIT`. */
export function consoleSessionPolicy(): RateLimitPolicy {
  return { limit: consoleSessionRateLimit(), windowMs: 1000 };
}

/** `hits`: times (epoch ms) of the allowed requests still inside the window, this one included when allowed. */
export type RateLimitHit = { allowed: boolean; hits: number[] };

export type RateLimitStore = { hit: (subject: string, policy: RateLimitPolicy, nowMs: number) => Promise<RateLimitHit> };

export type RateLimitDecision = { allowed: boolean; policy: RateLimitPolicy; remaining: number; resetMs: number };

/** One process: a map of subject → allowed times, swept of idle subjects every few windows. */
export function createMemoryRateLimitStore(): RateLimitStore {
  const logs = new Map<string, { hits: number[]; windowMs: number }>();
  let lastSweepMs = 0;
  return {
    async hit(subject, policy, nowMs) {
      if (nowMs - lastSweepMs > 10_000) {
        lastSweepMs = nowMs;
        for (const [key, log] of logs) if ((log.hits.at(-1) ?? 0) <= nowMs - log.windowMs) logs.delete(key);
      }
      const hits = (logs.get(subject)?.hits ?? []).filter((time) => time > nowMs - policy.windowMs);
      const allowed = hits.length < policy.limit;
      if (allowed) hits.push(nowMs);
      logs.set(subject, { hits, windowMs: policy.windowMs });
      return { allowed, hits };
    },
  };
}

/**
 * Shared by every instance through `api_rate_limit_logs`. One upsert decides: the row lock serialises concurrent
 * requests of a subject, the SET expressions read the row as it was before this request, and `last_allowed`
 * returns this statement's own decision. Times come from the app's clock (instances are expected to be NTP-synced;
 * skew only shifts when a slot frees up, never lets a window hold more than `limit`).
 */
export function createPostgresRateLimitStore(db: Db): RateLimitStore {
  let lastCleanupMs = 0;
  return {
    async hit(subject, policy, nowMs) {
      const cutoff = sql`${nowMs - policy.windowMs}::bigint`;
      const live = sql`(select count(*) from unnest(${apiRateLimitLogs.hits}) as h where h > ${cutoff})`;
      const kept = sql`(select coalesce(array_agg(h order by h), '{}'::bigint[]) from unnest(${apiRateLimitLogs.hits}) as h where h > ${cutoff})`;
      const [row] = await db
        .insert(apiRateLimitLogs)
        .values({ key: subject, hits: [nowMs], lastAllowed: true, expiresAt: new Date(nowMs + policy.windowMs) })
        .onConflictDoUpdate({
          target: apiRateLimitLogs.key,
          set: {
            lastAllowed: sql`${live} < ${policy.limit}`,
            hits: sql`${kept} || case when ${live} < ${policy.limit} then array[${nowMs}::bigint] else '{}'::bigint[] end`,
            expiresAt: new Date(nowMs + policy.windowMs),
          },
        })
        .returning({ hits: apiRateLimitLogs.hits, allowed: apiRateLimitLogs.lastAllowed });
      if (Date.now() - lastCleanupMs > 60_000) {
        lastCleanupMs = Date.now();
        // Rows of subjects idle for a minute; by the database's clock, so a test's injected clock never removes live rows.
        void db
          .delete(apiRateLimitLogs)
          .where(lt(apiRateLimitLogs.expiresAt, sql`now() - interval '1 minute'`))
          .catch(() => {});
      }
      return { allowed: row!.allowed, hits: row!.hits.map(Number) };
    },
  };
}

export async function consumeRateLimit(store: RateLimitStore, subject: string, policy: RateLimitPolicy, nowMs = Date.now()): Promise<RateLimitDecision> {
  const { allowed, hits } = await store.hit(subject, policy, nowMs);
  const oldest = hits.length > 0 ? Math.min(...hits) : nowMs;
  return {
    allowed,
    policy,
    remaining: allowed ? Math.max(0, policy.limit - hits.length) : 0,
    // When the oldest counted request leaves the window, one more request is allowed.
    resetMs: Math.max(1, oldest + policy.windowMs - nowMs),
  };
}

/**
 * Per verified identity — an API key (`key:…`), a signed-in person on the console (`person:…`): in this process by
 * default, `RATE_LIMIT_STORE=postgres` shares it between instances. One per process (server/runtime/process-singleton.ts).
 */
export function identityRateLimitStore(): RateLimitStore {
  return processSingleton("identityRateLimitStore", () => (rateLimitStore() === "postgres" ? createPostgresRateLimitStore(getDb()) : createMemoryRateLimitStore()));
}

/**
 * Per client address, always in memory: this limit guards the server against floods of keyless requests, and a
 * database write for each of them would make the guard itself the cost (with N instances a client gets ≤ N × limit).
 */
export function clientAddressRateLimitStore(): RateLimitStore {
  return processSingleton("clientAddressRateLimitStore", createMemoryRateLimitStore);
}

/** `RateLimit-Policy` / `RateLimit` (IETF draft) and, when refused, `Retry-After`, all in whole seconds. */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  const { limit, windowMs } = decision.policy;
  const resetSeconds = Math.max(1, Math.ceil(decision.resetMs / 1000));
  const headers: Record<string, string> = {
    "RateLimit-Policy": `${limit};w=${Math.ceil(windowMs / 1000)}`,
    RateLimit: `limit=${limit}, remaining=${decision.remaining}, reset=${resetSeconds}`,
  };
  if (!decision.allowed) headers["Retry-After"] = String(resetSeconds);
  return headers;
}
