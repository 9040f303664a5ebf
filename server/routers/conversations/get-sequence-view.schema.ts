import { z } from "zod";
import { ZStepSchema } from "@/server/schemas/agent";
import { ZLifecycleStatusSchema, ZSequenceIdInputSchema } from "@/server/schemas/sequence";

export const ZGetSequenceViewRequestSchema = z.object({ sequenceId: ZSequenceIdInputSchema });

const ZChainStatusSchema = z.enum(["active", "waiting"]).nullable();

export const ZGetSequenceViewResponseSchema = z.object({
  sequence: z.object({
    sequenceId: z.string(),
    agentId: z.string(),
    agentName: z.string(),
    name: z.string(),
    phoneNumber: z.string(),
    phoneNumberExt: z.string(),
    toEmailAddress: z.string(),
    timezone: z.string(),
    requestedScheduledAt: z.string().nullable(),
    scheduledBy: z.string(),
    lifecycleStatus: ZLifecycleStatusSchema,
    customInputVariables: z.record(z.string(), z.string()),
    batchId: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    endedAt: z.string().nullable(),
  }),
  steps: z.array(
    ZStepSchema.extend({
      stepNumber: z.number().int(),
      state: z.enum(["done", "in progress", "scheduled", "cancelled", "to come", "not run"]),
      callId: z.string().nullable(),
      resultType: z.string().nullable(),
      scheduledAt: z.string().nullable(),
    }),
  ),
  calls: z.array(
    z.object({
      callId: z.string(),
      stepNumber: z.number().int(),
      attempt: z.number().int(),
      scheduledAt: z.string(),
      endedAt: z.string().nullable(),
      resultType: z.string(),
      callStatus: z.string(),
      duration: z.number().int(),
      hasRecording: z.boolean(),
      hasTranscript: z.boolean(),
      hasMeeting: z.boolean(),
    }),
  ),
  chain: z
    .object({
      groupByField: z.string().nullable(),
      groupValue: z.string(),
      position: z.number().int().nullable(),
      chainStatus: ZChainStatusSchema,
      waitingCount: z.number().int(),
      members: z.array(
        z.object({
          sequenceId: z.string(),
          name: z.string(),
          phoneNumber: z.string(),
          position: z.number().int().nullable(),
          chainStatus: ZChainStatusSchema,
          lifecycleStatus: ZLifecycleStatusSchema,
        }),
      ),
      truncated: z.boolean(),
    })
    .nullable(),
});
