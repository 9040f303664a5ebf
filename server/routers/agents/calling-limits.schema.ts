import { z } from "zod";
import { ZAgentIdSchema } from "@/server/schemas/agent";
import { ZAgentCallingLimitsSchema } from "@/server/schemas/calling-limits";
import {
  MAX_AUTO_PAUSE_WINDOW_CALLS,
  MAX_CONCURRENT_CALLS_SETTING,
  MAX_DAILY_CREDIT_CAP,
  MIN_AUTO_PAUSE_WINDOW_CALLS,
} from "@/server/schemas/limits";
import { ZJsonBooleanSchema } from "@/server/schemas/sequence";

export const ZAgentCallingLimitsViewSchema = ZAgentCallingLimitsSchema.extend({
  agentId: z.string(),
  status: z.string(),
  pauseReason: z.string().nullable().describe("Why the agent is PAUSED, when a reason was recorded (auto-pause records one)."),
});
export type TAgentCallingLimitsView = z.infer<typeof ZAgentCallingLimitsViewSchema>;

export const ZGetCallingLimitsRequestSchema = z.object({ agentId: ZAgentIdSchema });
export const ZGetCallingLimitsResponseSchema = ZAgentCallingLimitsViewSchema;

export const ZUpdateCallingLimitsRequestSchema = z.object({
  agentId: ZAgentIdSchema,
  maxConcurrentCalls: z.number().int().min(1).max(MAX_CONCURRENT_CALLS_SETTING).nullable().optional(),
  dailyCreditCap: z.number().int().min(1).max(MAX_DAILY_CREDIT_CAP).nullable().optional(),
  autoPause: z
    .object({
      enabled: ZJsonBooleanSchema.optional(),
      windowCalls: z.number().int().min(MIN_AUTO_PAUSE_WINDOW_CALLS).max(MAX_AUTO_PAUSE_WINDOW_CALLS).optional(),
      failurePercent: z.number().int().min(1).max(100).optional(),
    })
    .optional(),
});
export type TUpdateCallingLimitsRequest = z.infer<typeof ZUpdateCallingLimitsRequestSchema>;
export const ZUpdateCallingLimitsResponseSchema = ZAgentCallingLimitsViewSchema;
