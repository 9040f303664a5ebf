/**
 * `npm run seed -- --json [--webhook-url URL]`: a fresh demo dataset in the database the app uses (DATABASE_URL,
 * or the embedded cluster in $DATA_DIR — reused when the app is running). Prints only JSON on stdout.
 * The demo users get new random passwords (printed in the JSON); `$DATA_DIR/demo.json`, when present, is updated with them.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createDb } from "@/db";
import { appBaseUrl, dataDir } from "@/server/config/settings";
import { configureLogging, flushLogs } from "@/server/observability/logger";
import { seedDemo, type SeedResult } from "@/server/seed/demo-seed";
import { parseFlag, resolveDatabase, validateConfiguration } from "./lib";

async function main() {
  const argv = process.argv.slice(2);
  validateConfiguration();
  // stdout is the JSON; the engine's log lines (the seed runs real calls) go to stderr, warnings and worse by default.
  configureLogging({ stderr: true, defaultLevel: "warn" });
  const webhookUrl = parseFlag(argv, "--webhook-url");
  const { url, embedded } = await resolveDatabase((line) => process.stderr.write(`${line}\n`));
  const handle = createDb(url, { max: 4 });
  try {
    const result = await seedDemo(handle.db, { baseUrl: `${appBaseUrl()}/api/v1`, webhookUrl });
    rememberDemoPasswords(result);
    process.stdout.write(`${JSON.stringify(result, null, argv.includes("--json") ? 0 : 2)}\n`);
  } finally {
    await handle.close();
    if (embedded?.startedHere) await embedded.stop();
    await flushLogs();
  }
}

/** The first start's demo.json keeps its organizations; only the (new) demo passwords are written into it. */
function rememberDemoPasswords(result: SeedResult) {
  const file = path.join(dataDir(), "demo.json");
  if (!existsSync(file)) return;
  const demo = JSON.parse(readFileSync(file, "utf8")) as SeedResult;
  demo.dashboard.users = result.dashboard.users;
  writeFileSync(file, JSON.stringify(demo, null, 2), { mode: 0o600 });
  process.stderr.write(`The demo users have new passwords: they are in the printed JSON (dashboard.users) and in ${file}.\n`);
}

main().catch((error) => {
  process.stderr.write(`seed failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
