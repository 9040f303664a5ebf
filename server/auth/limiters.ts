import { createHash } from "node:crypto";
import { RateLimiterDrizzle, RateLimiterMemory, type RateLimiterAbstract } from "rate-limiter-flexible";
import { getDb } from "@/db";
import { rateLimits } from "@/db/schema";
import { rateLimitStore } from "@/server/config/settings";
import { processSingleton } from "@/server/runtime/process-singleton";

export type LimiterOptions = {
  /** Namespaces the counters (they share the `rate_limits` table with the API limiter under RATE_LIMIT_STORE=postgres). */
  keyPrefix: string;
  points: number;
  /** Seconds. */
  duration: number;
};

/**
 * A named rate-limiter-flexible limiter for sign-in and invitation counters, created once per process (server/runtime/process-singleton.ts,
 * so every module copy and dev hot reload keep the counts): in memory by default, shared by every instance with `RATE_LIMIT_STORE=postgres`.
 */
export function authLimiter(options: LimiterOptions): RateLimiterAbstract {
  const limiters = processSingleton("authLimiters", () => new Map<string, RateLimiterAbstract>());
  const store = rateLimitStore();
  const cacheKey = `${store}:${options.keyPrefix}`;
  let limiter = limiters.get(cacheKey);
  if (!limiter) {
    limiter =
      store === "postgres"
        ? new RateLimiterDrizzle({ ...options, storeClient: getDb(), schema: rateLimits })
        : new RateLimiterMemory(options);
    limiters.set(cacheKey, limiter);
  }
  return limiter;
}

/** Counters are keyed by a hash, so email addresses and IPs never sit in the limiter's store as they are. */
export function limiterKey(value: string): string {
  return createHash("sha256").update(value).digest("hex").slice(0, 32);
}
