import { createHash } from "node:crypto";
import { RateLimiterDrizzle, RateLimiterMemory, type RateLimiterAbstract } from "rate-limiter-flexible";
import { getDb } from "@/db";
import { rateLimits } from "@/db/schema";
import { rateLimitStore } from "@/server/config/settings";

export type LimiterOptions = {
  /** Namespaces the counters (they share the `rate_limits` table with the API limiter under RATE_LIMIT_STORE=postgres). */
  keyPrefix: string;
  points: number;
  /** Seconds. */
  duration: number;
};

const holder = globalThis as unknown as { __authLimiters?: Map<string, RateLimiterAbstract> };

/**
 * A named rate-limiter-flexible limiter for sign-in and invitation counters, created once per process (on globalThis, so
 * dev hot reload keeps the counts): in memory by default, shared by every instance with `RATE_LIMIT_STORE=postgres`.
 */
export function authLimiter(options: LimiterOptions): RateLimiterAbstract {
  holder.__authLimiters ??= new Map();
  const store = rateLimitStore();
  const cacheKey = `${store}:${options.keyPrefix}`;
  let limiter = holder.__authLimiters.get(cacheKey);
  if (!limiter) {
    limiter =
      store === "postgres"
        ? new RateLimiterDrizzle({ ...options, storeClient: getDb(), schema: rateLimits })
        : new RateLimiterMemory(options);
    holder.__authLimiters.set(cacheKey, limiter);
  }
  return limiter;
}

/** Counters are keyed by a hash, so email addresses and IPs never sit in the limiter's store as they are. */
export function limiterKey(value: string): string {
  return createHash("sha256").update(value).digest("hex").slice(0, 32);
}
