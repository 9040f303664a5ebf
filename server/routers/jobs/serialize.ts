import type { SerializedError } from "@/db/schema/jobs";
import type { RunSummary } from "@/server/services/jobs/run-types";
import type { TRunSummary } from "./jobs.schema";

export function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}

export function serializeJobError(error: SerializedError | null) {
  return error ? { name: String(error.name), message: String(error.message), stack: typeof error.stack === "string" ? error.stack : undefined } : null;
}

export function serializeRunSummary(run: RunSummary): TRunSummary {
  return {
    ...run,
    createdAt: run.createdAt.toISOString(),
    startedAt: iso(run.startedAt),
    endedAt: iso(run.endedAt),
    nextWakeAt: iso(run.nextWakeAt),
    error: serializeJobError(run.error),
  };
}
