import { z } from "zod";

export const runStatuses = ["queued", "running", "completed", "failed", "cancelled"] as const;

export const ZJobErrorSchema = z.object({
  name: z.string(),
  message: z.string(),
  stack: z.string().optional(),
});

export const ZRunSummarySchema = z.object({
  runId: z.string().describe("Run id (ULID)."),
  functionId: z.string().describe("Inngest function id, e.g. `outbound-calling-sequence-runner`."),
  functionName: z.string(),
  status: z.enum(runStatuses),
  eventName: z.string().describe("Name of the event that started the run."),
  partition: z.string().describe("Runner group: `default` for the app."),
  createdAt: z.string().datetime(),
  startedAt: z.string().datetime().nullable(),
  endedAt: z.string().datetime().nullable(),
  nextWakeAt: z.string().datetime().nullable().describe("When the run next does something on its own (sleep end, wait timeout, retry)."),
  stepCount: z.number().int(),
  failedAttempts: z.number().int().describe("Failed step attempts (retries used) over all steps."),
  error: ZJobErrorSchema.nullable(),
});

export type TRunSummary = z.infer<typeof ZRunSummarySchema>;
