/**
 * `npm run seed -- --json [--webhook-url URL]`: a fresh demo dataset in the database the app uses (DATABASE_URL,
 * or the embedded cluster in $DATA_DIR — reused when the app is running). Prints only JSON on stdout.
 */
import { createDb } from "@/db";
import { appBaseUrl } from "@/server/config/settings";
import { seedDemo } from "@/server/seed/demo-seed";
import { parseFlag, resolveDatabase } from "./lib";

async function main() {
  const argv = process.argv.slice(2);
  const webhookUrl = parseFlag(argv, "--webhook-url");
  const { url, embedded } = await resolveDatabase((line) => process.stderr.write(`${line}\n`));
  const handle = createDb(url, { max: 4 });
  try {
    const result = await seedDemo(handle.db, { baseUrl: `${appBaseUrl()}/api/v1`, webhookUrl });
    process.stdout.write(`${JSON.stringify(result, null, argv.includes("--json") ? 0 : 2)}\n`);
  } finally {
    await handle.close();
    if (embedded?.startedHere) await embedded.stop();
  }
}

main().catch((error) => {
  process.stderr.write(`seed failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
