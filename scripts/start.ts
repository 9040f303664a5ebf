/**
 * `npm start` (production server) and `npm run dev` (hot reload) on embedded defaults:
 * the configuration validated first (one message listing every bad setting), Postgres in $DATA_DIR (unless
 * DATABASE_URL), migrations applied, demo data seeded on the first start (embedded mode, or SEED_DEMO=1), then the
 * HTTP server (Next.js + the /api/v1 fast path + /healthz, /readyz, /metrics) on $PORT, and the graceful shutdown on
 * SIGTERM (server/runtime/shutdown.ts).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { getConfig } from "@/server/config/env";
import { appBaseUrl, appPort, dataDir, isEmbeddedMode, listenHost } from "@/server/config/settings";
import { flushLogs, getLogger } from "@/server/observability/logger";
import { onShutdown } from "@/server/runtime/lifecycle";
import { installShutdownHandlers } from "@/server/runtime/shutdown";
import type { SeedResult } from "@/server/seed/demo-seed";
import { handOverSignalsToServer } from "@/db/embedded";
import { ensureDemoData, persistentSecret, resolveDatabase, validateConfiguration } from "./lib";

async function main() {
  const dev = process.argv.includes("--dev");
  validateConfiguration();
  // `npm run dev` logs for people unless told otherwise.
  if (dev && !getConfig().raw.LOG_FORMAT) {
    Object.assign(process.env, { LOG_FORMAT: "pretty" });
    validateConfiguration();
  }
  const log = getLogger("start");
  if (!dev && !existsSync(path.resolve(".next/BUILD_ID"))) {
    log.fatal("No production build found: run `npm run build` first (or `npm run dev`).");
    await flushLogs();
    process.exit(1);
  }
  const port = appPort();
  const { url, embedded } = await resolveDatabase((line) => log.debug({ line }, "embedded postgres"));
  if (embedded?.startedHere) onShutdown("embedded-postgres", "database", () => embedded.stop());
  // What embedded mode generates (its database, its secrets) becomes part of the configuration, checked again.
  const config = getConfig();
  const generated: Record<string, string> = { DATABASE_URL: url, PORT: String(port) };
  if (embedded) generated.EMBEDDED_MODE = "1";
  generated.NEXTAUTH_URL = config.NEXTAUTH_URL ?? appBaseUrl();
  if (embedded && !config.NEXTAUTH_SECRET) generated.NEXTAUTH_SECRET = persistentSecret("nextauth.secret");
  if (embedded && !config.APP_SECRET) generated.APP_SECRET = persistentSecret("app.secret");
  Object.assign(process.env, generated);
  validateConfiguration();
  if (!getConfig().NEXTAUTH_SECRET) {
    log.fatal("NEXTAUTH_SECRET must be set when DATABASE_URL is used.");
    await flushLogs();
    process.exit(1);
  }

  const baseUrl = getConfig().NEXTAUTH_URL!;
  const demo = await ensureDemoData(url, `${baseUrl}/api/v1`);
  if (demo) announceDemo(demo, baseUrl);

  const { startHttpServer } = await import("@/server/http/node-server");
  const host = listenHost();
  const server = await startHttpServer({ port, dev, listenHost: host });
  installShutdownHandlers({ closeHttp: (budgetMs) => server.close(budgetMs) });
  handOverSignalsToServer();
  log.info(
    { url: baseUrl, listen: host ? `${host}:${port}` : `:${port}`, mode: isEmbeddedMode() ? "embedded" : "external database" },
    `ready on ${baseUrl}${host === "127.0.0.1" ? " (listening on 127.0.0.1 only; set HOST=0.0.0.0 to accept other machines)" : ""}`,
  );
}

/**
 * Embedded mode (a local demo): the banner for the person who ran `npm start`, with the demo key and login — printed
 * to the terminal, not logged. With SEED_DEMO=1 on an external database, one log line says where they are instead.
 */
function announceDemo(demo: SeedResult, url: string) {
  const file = path.join(dataDir(), "demo.json");
  if (!isEmbeddedMode()) {
    getLogger("start").info({ file }, "demo data seeded (SEED_DEMO=1): the demo API key and logins are in the file");
    return;
  }
  const primary = demo.organizations.find((org) => org.key === "primary");
  const admin = demo.dashboard.users.find((user) => user.role === "admin");
  const lines = [
    "",
    "  Outbound calling service (embedded mode)",
    `  Dashboard:     ${url}   login ${admin?.email} / ${admin?.password}`,
    `  API:           ${url}/api/v1   (reference: ${url}/docs)`,
    `  Demo org:      ${primary?.name} (orgId ${primary?.orgId})`,
    `  Demo API key:  ${primary?.apiKey}`,
    `  Try:           curl -H "x-api-key: ${primary?.apiKey}" "${url}/api/v1/agents?orgId=${primary?.orgId}"`,
    `  All demo data: ${file}`,
    "",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

main().catch(async (error: unknown) => {
  getLogger("start").fatal({ err: error }, "the server could not start");
  await flushLogs();
  process.exit(1);
});
