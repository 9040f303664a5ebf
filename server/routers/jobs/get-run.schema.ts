import { z } from "zod";
import { idText } from "@/server/schemas/text";
import { ZJobErrorSchema, ZRunSummarySchema } from "./jobs.schema";

export const ZGetRunRequestSchema = z.object({ runId: idText() });

export const ZGetRunResponseSchema = ZRunSummarySchema.extend({
  event: z.unknown(),
  output: z.unknown(),
  outputRedacted: z.boolean().describe("The run's output or error is hidden: not provably about this organization's data."),
  steps: z.array(
    z.object({
      stepId: z.string(),
      hashedId: z.string(),
      name: z.string(),
      op: z.string().describe("StepRun, Sleep, WaitForEvent or InvokeFunction."),
      status: z.enum(["planned", "completed", "failed", "sleeping", "waiting", "invoking", "cancelled"]),
      attempts: z.number().int().describe("Failed attempts of this step."),
      wakeAt: z.string().datetime().nullable(),
      waitEvent: z.string().nullable(),
      waitExpression: z.string().nullable(),
      output: z.unknown(),
      outputRedacted: z.boolean().describe("This step's output, error and wait expression are hidden: not provably about this organization's data."),
      error: ZJobErrorSchema.nullable(),
      createdAt: z.string().datetime(),
      completedAt: z.string().datetime().nullable(),
    }),
  ),
  attempts: z.array(
    z.object({
      stepId: z.string().describe('"step" for a discovery request, else the hashed step id.'),
      stepName: z.string().nullable(),
      attempt: z.number().int(),
      outcome: z.string(),
      httpStatus: z.number().int().nullable(),
      error: ZJobErrorSchema.nullable(),
      runnerId: z.string(),
      startedAt: z.string().datetime(),
      durationMs: z.number().int(),
    }),
  ),
});
