import { z } from "zod";
import { settingsOf } from "./setting";
import { oneOf, wholeNumber } from "./value-types";

/**
 * What the HTTP server accepts: body sizes per route, rate limits and where they are kept, which proxies to believe
 * (server/http/*, docs/security.md). Listed in the docs under "Server".
 */
const setting = settingsOf("Server");

export const httpLimitSettings = {
  TRUST_PROXY: setting(
    z
      .string()
      .transform((value) => value.toLowerCase())
      .refine((value) => /^\d+$/.test(value) || ["true", "on", "false", "off"].includes(value), {
        error: "must be true, false or a number of proxies",
      })
      .transform((value) => (value === "true" || value === "on" ? 1 : value === "false" || value === "off" ? 0 : Number(value)))
      .optional(),
    {
      description: "How many reverse proxies to believe in `X-Forwarded-For` (API limits, per-IP sign-in lockout): `true` = 1, or a number.",
      default: "unset: the client is the TCP peer",
    },
  ),
  API_BODY_LIMIT_BYTES: setting(wholeNumber(1, 1024 * 1024 * 1024).default(256 * 1024), {
    description: "Largest request body `/api/v1` reads (except bulk enrollment); larger → 413.",
    default: "`262144` (256 kB)",
    sameOnEveryInstance: true,
  }),
  API_BULK_BODY_LIMIT_BYTES: setting(wholeNumber(1, 1024 * 1024 * 1024).default(2 * 1024 * 1024), {
    description: "Largest body of bulk enrollment (`POST /agents/{agentId}/schedule/sequences`).",
    default: "`2097152` (2 MB)",
    sameOnEveryInstance: true,
  }),
  API_UNAUTHENTICATED_RATE_LIMIT: setting(wholeNumber(1, 1_000_000).default(20), {
    description: "Requests per rolling second one client address may make without credentials (per instance): to `/api/v1` without a valid API key, to `/api/trpc` without a session, to the sign-in routes `/api/auth/*`.",
    default: "`20`",
  }),
  TRPC_BODY_LIMIT_BYTES: setting(wholeNumber(1, 1024 * 1024 * 1024).default(2 * 1024 * 1024), {
    description:
      "Largest request body of the console's endpoint `/api/trpc` (the CSV import sends up to 1,000 contacts per request, like bulk enrollment); larger → 413 before a byte is read (`npm start`, `npm run dev`).",
    default: "`2097152` (2 MB)",
    sameOnEveryInstance: true,
  }),
  INNGEST_BODY_LIMIT_BYTES: setting(wholeNumber(1, 1024 * 1024 * 1024).default(32 * 1024 * 1024), {
    description: "Largest request body of `/api/inngest` (Inngest's largest function run state is 32 MB); larger → 413 before a byte is read.",
    default: "`33554432` (32 MB)",
    sameOnEveryInstance: true,
  }),
  OTHER_BODY_LIMIT_BYTES: setting(wholeNumber(1, 1024 * 1024 * 1024).default(64 * 1024), {
    description:
      "Largest request body of every other route the server hands to Next.js: sign-in (`/api/auth/*`), voice provider callbacks (`/api/voice/*`), pages; larger → 413 before a byte is read.",
    default: "`65536` (64 kB)",
    sameOnEveryInstance: true,
  }),
  CONSOLE_SESSION_RATE_LIMIT: setting(wholeNumber(1, 1_000_000).default(10), {
    description:
      "Requests per rolling second one signed-in person may make to `/api/trpc` (all their sessions together; shared by every instance with `RATE_LIMIT_STORE=postgres`). Requests without a session count against the client address (`API_UNAUTHENTICATED_RATE_LIMIT`).",
    default: "`10`",
    sameOnEveryInstance: true,
  }),
  RATE_LIMIT_STORE: setting(oneOf(["memory", "postgres"] as const).default("memory"), {
    description: "`postgres`: the per-key API limit, the per-person console limit, sign-in lockout and invitation counters are shared by every instance (required with more than one instance).",
    default: "`memory` (one instance)",
    sameOnEveryInstance: true,
  }),
};
