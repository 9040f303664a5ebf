/**
 * `npm run jobs [-- --limit N] [--status running|failed|…] [--function ID] [--run RUN_ID] [--json]`:
 * recent background-job runs of the embedded Inngest runner, from DATABASE_URL or the embedded cluster in
 * $DATA_DIR (reused while the app runs). `--run` shows one run with its steps and attempts.
 * Operator-level: every organization's runs and system runs, unredacted (it reads the database on the server; the console
 * shows this only to OPERATOR_EMAILS, see docs/security.md "Roles").
 */
import { createDb } from "@/db";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "@/db/embedded";
import type { RunStatus } from "@/db/schema/jobs";
import { getConfig } from "@/server/config/env";
import { configureLogging } from "@/server/observability/logger";
import { dataDir } from "@/server/config/settings";
import { getRun } from "@/server/services/jobs/get-run";
import { listRuns } from "@/server/services/jobs/list-runs";
import type { RunSummary } from "@/server/services/jobs/run-types";

function option(argv: string[], name: string): string | undefined {
  const index = argv.indexOf(name);
  if (index >= 0) return argv[index + 1];
  return argv.find((arg) => arg.startsWith(`${name}=`))?.slice(name.length + 1);
}

function time(date: Date | null): string {
  return date ? date.toISOString().replace("T", " ").slice(0, 19) : "-";
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join("  ").trimEnd()).join("\n");
}

function summaryRows(runs: RunSummary[]): string[][] {
  return [
    ["RUN", "FUNCTION", "STATUS", "EVENT", "CREATED", "ENDED", "NEXT WAKE", "STEPS", "RETRIES", "ERROR"],
    ...runs.map((run) => [
      run.runId,
      run.functionId.replace(/^outbound-calling-/, ""),
      run.status,
      run.eventName,
      time(run.createdAt),
      time(run.endedAt),
      time(run.nextWakeAt),
      String(run.stepCount),
      String(run.failedAttempts),
      run.error ? `${run.error.name}: ${run.error.message}`.slice(0, 80) : "",
    ]),
  ];
}

async function main() {
  const argv = process.argv.slice(2);
  configureLogging({ stderr: true, defaultLevel: "warn" });
  let embedded: EmbeddedDatabase | null = null;
  let url = getConfig().DATABASE_URL;
  if (!url) {
    embedded = await startEmbeddedPostgres(dataDir());
    url = embedded.url;
  }
  const handle = createDb(url, { max: 2 });
  try {
    const runId = option(argv, "--run");
    const json = argv.includes("--json");
    if (runId) {
      const run = await getRun(handle.db, { runId, organizationId: null });
      if (json) return void process.stdout.write(`${JSON.stringify(run, null, 2)}\n`);
      process.stdout.write(`${table(summaryRows([run]))}\n\nSteps\n`);
      process.stdout.write(
        `${table([
          ["STEP", "OP", "STATUS", "FAILED ATTEMPTS", "WAKE AT", "COMPLETED", "ERROR"],
          ...run.steps.map((step) => [step.name, step.op, step.status, String(step.attempts), time(step.wakeAt), time(step.completedAt), step.error?.message.slice(0, 80) ?? ""]),
        ])}\n\nAttempts\n`,
      );
      process.stdout.write(
        `${table([
          ["STEP", "ATTEMPT", "OUTCOME", "HTTP", "MS", "RUNNER", "ERROR"],
          ...run.attempts.map((a) => [a.stepName ?? a.stepId, String(a.attempt), a.outcome, String(a.httpStatus ?? ""), String(a.durationMs), a.runnerId, a.error?.message.slice(0, 80) ?? ""]),
        ])}\n`,
      );
      return;
    }
    const { runs } = await listRuns(handle.db, {
      organizationId: null,
      limit: Number(option(argv, "--limit") ?? 20),
      status: option(argv, "--status") as RunStatus | undefined,
      functionId: option(argv, "--function"),
    });
    if (json) return void process.stdout.write(`${JSON.stringify(runs, null, 2)}\n`);
    process.stdout.write(runs.length ? `${table(summaryRows(runs))}\n` : "No background-job runs yet.\n");
  } finally {
    await handle.close();
    if (embedded?.startedHere) await embedded.stop();
  }
}

main().catch((error) => {
  process.stderr.write(`jobs: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
