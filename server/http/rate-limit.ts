import { createHash } from "node:crypto";
import { RateLimiterDrizzle, RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { getDb, type Db } from "@/db";
import { rateLimits } from "@/db/schema";

/** 10 requests per second per API key (spec, Limits). A fixed one-second window: 8 evenly paced requests never hit it. */
export const RATE_LIMIT_POINTS = 10;
export const RATE_LIMIT_WINDOW_SECONDS = 1;

export type RateLimitDecision = { allowed: boolean; remaining: number; resetMs: number };

const holder = globalThis as unknown as { __rateLimiter?: RateLimiterAbstract };

/**
 * In memory by default (one instance). `RATE_LIMIT_STORE=postgres` shares the limit between instances through
 * a table in the app's database (`rate_limits`, rate-limiter-flexible's Drizzle store).
 */
export function createRateLimiter(store: "memory" | "postgres", db?: Db): RateLimiterAbstract {
  const options = { points: RATE_LIMIT_POINTS, duration: RATE_LIMIT_WINDOW_SECONDS, keyPrefix: "api" };
  if (store === "postgres") return new RateLimiterDrizzle({ ...options, storeClient: db ?? getDb(), schema: rateLimits, clearExpiredByTimeout: !db });
  return new RateLimiterMemory(options);
}

function getLimiter(): RateLimiterAbstract {
  holder.__rateLimiter ??= createRateLimiter(process.env.RATE_LIMIT_STORE === "postgres" ? "postgres" : "memory");
  return holder.__rateLimiter;
}

/** Keys are limited by a hash of the key, so the raw key never sits in the limiter's store. */
export async function consumeRateLimit(apiKey: string, limiter: RateLimiterAbstract = getLimiter()): Promise<RateLimitDecision> {
  const id = createHash("sha256").update(apiKey).digest("hex").slice(0, 32);
  try {
    const res = await limiter.consume(id, 1);
    return { allowed: true, remaining: res.remainingPoints, resetMs: res.msBeforeNext };
  } catch (error) {
    if (error instanceof RateLimiterRes) return { allowed: false, remaining: 0, resetMs: error.msBeforeNext };
    throw error;
  }
}

/** `RateLimit-Policy` / `RateLimit` (IETF draft) and, when refused, `Retry-After`. */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  const resetSeconds = Math.max(1, Math.ceil(decision.resetMs / 1000));
  const headers: Record<string, string> = {
    "RateLimit-Policy": `${RATE_LIMIT_POINTS};w=${RATE_LIMIT_WINDOW_SECONDS}`,
    RateLimit: `limit=${RATE_LIMIT_POINTS}, remaining=${decision.remaining}, reset=${resetSeconds}`,
  };
  if (!decision.allowed) headers["Retry-After"] = String(resetSeconds);
  return headers;
}
