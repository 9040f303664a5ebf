import { recordRateLimitRejection } from "@/server/observability/metrics";
import {
  clientAddressPolicy,
  clientAddressRateLimitStore,
  consoleSessionPolicy,
  consumeRateLimit,
  identityRateLimitStore,
  rateLimitHeaders,
  type RateLimitStore,
} from "./rate-limit";

/**
 * The rate limits of the routes Next.js serves, on the `/api/v1` limiter (server/http/rate-limit.ts): the console's
 * `/api/trpc` per signed-in person (a verified session's user, shared by every instance with RATE_LIMIT_STORE=postgres),
 * and, for requests without a session there and for the sign-in routes (`/api/auth/*`), per client address — the same
 * per-address budget `/api/v1` requests without a valid key draw on.
 */
export type ConsoleCaller = { userId: string } | { address: string };

export type ConsoleRateLimitOptions = { identityStore?: RateLimitStore; addressStore?: RateLimitStore; nowMs?: number };

export type ConsoleRateLimitOutcome = { allowed: true; headers: Record<string, string> } | { allowed: false; headers: Record<string, string>; message: string };

export async function consumeConsoleRateLimit(caller: ConsoleCaller, options: ConsoleRateLimitOptions = {}): Promise<ConsoleRateLimitOutcome> {
  const nowMs = options.nowMs ?? Date.now();
  const decision =
    "userId" in caller
      ? await consumeRateLimit(options.identityStore ?? identityRateLimitStore(), `person:${caller.userId}`, consoleSessionPolicy(), nowMs)
      : await consumeRateLimit(options.addressStore ?? clientAddressRateLimitStore(), `address:${caller.address}`, clientAddressPolicy(), nowMs);
  const headers = rateLimitHeaders(decision);
  if (decision.allowed) return { allowed: true, headers };
  recordRateLimitRejection("userId" in caller ? "session" : "address");
  const message =
    "userId" in caller
      ? `More than ${decision.policy.limit} console requests per second for this account. Wait a moment and retry.`
      : `More than ${decision.policy.limit} requests per second without credentials from this address. Wait a moment and retry.`;
  return { allowed: false, headers, message };
}
