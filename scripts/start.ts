/**
 * `npm start` (production server) and `npm run dev` (hot reload) on embedded defaults:
 * Postgres in $DATA_DIR (unless DATABASE_URL), migrations applied, demo data seeded on the first start,
 * the demo API key and dashboard login printed, then the HTTP server (Next.js + the /api/v1 fast path) on $PORT.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createDb } from "@/db";
import { appBaseUrl, appPort, dataDir, listenHost } from "@/server/config/settings";
import { seedDemo, type SeedResult } from "@/server/seed/demo-seed";
import { persistentSecret, resolveDatabase } from "./lib";

async function main() {
  const dev = process.argv.includes("--dev");
  if (!dev && !existsSync(path.resolve(".next/BUILD_ID"))) {
    console.error("No production build found: run `npm run build` first (or `npm run dev`).");
    process.exit(1);
  }
  const port = appPort();
  const { url, embedded } = await resolveDatabase();
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: url, PORT: String(port) };
  if (embedded) env.EMBEDDED_MODE = "1";
  env.NEXTAUTH_URL ??= appBaseUrl();
  env.NEXTAUTH_SECRET ??= embedded ? persistentSecret("nextauth.secret") : undefined;
  if (!env.NEXTAUTH_SECRET) throw new Error("NEXTAUTH_SECRET must be set when DATABASE_URL is used.");
  env.APP_SECRET ??= embedded ? persistentSecret("app.secret") : undefined;

  const demo = await ensureDemoData(url, `${env.NEXTAUTH_URL}/api/v1`);
  if (demo) printBanner(demo, env.NEXTAUTH_URL!);

  Object.assign(process.env, env);
  const { startHttpServer } = await import("@/server/http/node-server");
  const host = listenHost();
  const server = await startHttpServer({ port, dev, listenHost: host });
  const where = host ? `${host}:${port}` : `port ${port} on all interfaces`;
  console.log(`  Ready on ${env.NEXTAUTH_URL} (listening on ${where}${host === "127.0.0.1" ? "; set HOST=0.0.0.0 to accept other machines" : ""})`);
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    await server.close().catch(() => {});
    if (embedded?.startedHere) await embedded.stop();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown());
  process.on("SIGTERM", () => void shutdown());
}

/** Seeds once per data directory (embedded) or when SEED_DEMO=1; remembers the printed credentials in $DATA_DIR/demo.json. */
async function ensureDemoData(databaseUrl: string, baseUrl: string): Promise<SeedResult | null> {
  const file = path.join(dataDir(), "demo.json");
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as SeedResult;
  if (process.env.DATABASE_URL && process.env.SEED_DEMO !== "1") return null;
  const handle = createDb(databaseUrl, { max: 4 });
  try {
    const result = await seedDemo(handle.db, { baseUrl });
    writeFileSync(file, JSON.stringify(result, null, 2), { mode: 0o600 });
    return result;
  } finally {
    await handle.close();
  }
}

function printBanner(demo: SeedResult, url: string) {
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
    `  All demo data: ${path.join(dataDir(), "demo.json")}`,
    "",
  ];
  console.log(lines.join("\n"));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
