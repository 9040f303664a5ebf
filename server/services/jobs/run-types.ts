import type { RunStatus, SerializedError, StepStatus } from "@/db/schema/jobs";

/** What the job services return about runs; org-scoped-output.ts redacts them, get-run and list-runs build them. */
export type RunSummary = {
  runId: string;
  functionId: string;
  functionName: string;
  status: RunStatus;
  eventName: string;
  partition: string;
  createdAt: Date;
  startedAt: Date | null;
  endedAt: Date | null;
  /** When the run next does something on its own: a sleep ends, a wait or retry comes due. Null when done or runnable now. */
  nextWakeAt: Date | null;
  stepCount: number;
  /** Failed attempts over all steps (retries used). */
  failedAttempts: number;
  error: SerializedError | null;
};

export type RunStep = {
  stepId: string;
  hashedId: string;
  name: string;
  op: string;
  status: StepStatus;
  attempts: number;
  wakeAt: Date | null;
  waitEvent: string | null;
  waitExpression: string | null;
  output: unknown;
  error: SerializedError | null;
  createdAt: Date;
  completedAt: Date | null;
};

export type RunAttempt = {
  stepId: string;
  stepName: string | null;
  attempt: number;
  outcome: string;
  httpStatus: number | null;
  error: SerializedError | null;
  runnerId: string;
  startedAt: Date;
  durationMs: number;
};

export type RunDetail = RunSummary & { event: unknown; output: unknown; steps: RunStep[]; attempts: RunAttempt[] };
