import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import type { SerializedError } from "@/db/schema/jobs";
import { INNGEST_APP_ID } from "@/inngest/client";
import type { RunDetail } from "./run-types";

/**
 * What an organization's admins may see of a run about one of its entities (runVisibleTo). Step outputs, errors and the
 * run's output are shown only for steps that are provably about that entity: the app's organization functions below,
 * whose listed steps read or write only the run's own sequence / call / batch / delivery / message / test run. Anything else — a new step
 * nobody listed here, a test function, a batched step — is redacted. (The batched functions — dispatch-calls,
 * analyze-call, enqueue-webhook-deliveries — work on many organizations' calls at once: they are system runs, listed
 * for operators only, see SYSTEM_FUNCTIONS in list-runs.ts.) As a second check, an allowed output that
 * mentions the id of another organization's sequence, call, agent, batch or webhook delivery is redacted too.
 * Operators looking at all organizations see runs unredacted.
 */
const ORG_SCOPED_FUNCTIONS: Record<string, RegExp> = {
  "deliver-webhook": /^(attempt|wait-after-attempt)-\d+$/,
  "materialize-bulk-batch": /^(create-chunks|start-sequences)-\d+$/,
  "reconcile-meeting": /^reconcile-meeting-status$/,
  // One sequence message (its row, its transport's answer) and one test run (its cases, their results, the counts).
  "send-sequence-message": /^(until-due|send|follow-up)$/,
  "run-agent-tests": /^(start|wave-\d+|finish)$/,
};

const REDACTED_MESSAGE = "Hidden: this step is not provably about your organization's data.";
const ENTITY_ID = /^(?:[a-z]+(?:-[a-z]+)*\.[0-9a-z]{26}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
const MAX_IDS_CHECKED = 1000;

function stepPattern(functionId: string): RegExp | null {
  const local = functionId.startsWith(`${INNGEST_APP_ID}-`) ? functionId.slice(INNGEST_APP_ID.length + 1) : null;
  return local ? (ORG_SCOPED_FUNCTIONS[local] ?? null) : null;
}

function collectIds(value: unknown, into: Set<string>, depth = 0): void {
  if (into.size > MAX_IDS_CHECKED || depth > 20) return;
  if (typeof value === "string") {
    if (ENTITY_ID.test(value)) into.add(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectIds(item, into, depth + 1);
  } else if (value && typeof value === "object") {
    for (const item of Object.values(value)) collectIds(item, into, depth + 1);
  }
}

/** Ids among `ids` that belong to another organization's entities. */
async function foreignIds(db: DbOrTx, organizationId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const list = sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  );
  const tables = ["sequences", "calls", "agents", "bulk_batches", "webhook_deliveries", "webhook_endpoints", "sequence_messages", "agent_test_runs", "agent_test_results", "agent_test_cases"];
  const query = sql.join(
    tables.map((table) => sql`select id from ${sql.raw(table)} where id in (${list}) and organization_id <> ${organizationId}`),
    sql` union all `,
  );
  const rows = (await db.execute(query)) as unknown as Array<{ id: string }>;
  return new Set(rows.map((row) => row.id));
}

function redactError(error: SerializedError | null): SerializedError | null {
  return error ? { name: error.name, message: REDACTED_MESSAGE } : null;
}

export type RedactedRunDetail = Omit<RunDetail, "steps"> & { outputRedacted: boolean; steps: Array<RunDetail["steps"][number] & { outputRedacted: boolean }> };

/** A run's own error in the organization's list: hidden unless the function is one of the organization functions above. */
export function redactSummaryForOrganization<T extends { functionId: string; error: SerializedError | null }>(run: T): T {
  return stepPattern(run.functionId) ? run : { ...run, error: redactError(run.error) };
}

/** The run as the organization may see it. */
export async function redactRunForOrganization(db: DbOrTx, run: RunDetail, organizationId: string): Promise<RedactedRunDetail> {
  const pattern = stepPattern(run.functionId);
  const allowedStep = (stepId: string) => !!pattern?.test(stepId);
  const allowedFunction = pattern !== null;

  const candidates = new Set<string>();
  for (const step of run.steps) if (allowedStep(step.stepId)) collectIds(step.output, candidates);
  if (allowedFunction) collectIds(run.output, candidates);
  const tooMany = candidates.size > MAX_IDS_CHECKED;
  const foreign = tooMany ? new Set<string>() : await foreignIds(db, organizationId, [...candidates]);
  const mentionsForeign = (value: unknown) => {
    if (tooMany) return true;
    if (foreign.size === 0) return false;
    const ids = new Set<string>();
    collectIds(value, ids);
    return [...ids].some((id) => foreign.has(id));
  };

  const stepShown = new Map<string, boolean>();
  const steps = run.steps.map((step) => {
    const shown = allowedStep(step.stepId) && !mentionsForeign(step.output);
    stepShown.set(step.hashedId, shown);
    return shown
      ? { ...step, outputRedacted: false }
      : {
          ...step,
          output: null,
          error: redactError(step.error),
          waitExpression: null,
          outputRedacted: step.output !== null || step.error !== null || step.waitExpression !== null,
        };
  });
  const runShown = allowedFunction && !mentionsForeign(run.output);
  return {
    ...run,
    error: runShown ? run.error : redactError(run.error),
    output: runShown ? run.output : null,
    outputRedacted: !runShown && (run.output !== null || run.error !== null),
    steps,
    attempts: run.attempts.map((attempt) => {
      const shown = attempt.stepId === "step" ? runShown : (stepShown.get(attempt.stepId) ?? false);
      return shown ? attempt : { ...attempt, error: redactError(attempt.error) };
    }),
  };
}
