import { z } from "zod";
import { MAX_CONCURRENT_CALLS_SETTING } from "@/server/schemas/limits";
import { ZJsonBooleanSchema } from "@/server/schemas/sequence";

export const ZOrganizationCallingSettingsSchema = z.object({
  requireConsent: z.boolean().describe("Enrollment refuses contacts without a consent record (MISSING_CONSENT)."),
  maxConcurrentCalls: z
    .number()
    .int()
    .nullable()
    .describe("Calls of the whole organization in the air at once, enforced at dial time (more wait for a free line); null = no organization limit."),
});
export type TOrganizationCallingSettings = z.infer<typeof ZOrganizationCallingSettingsSchema>;

export const ZGetCallingSettingsRequestSchema = z.object({}).optional();
export const ZGetCallingSettingsResponseSchema = ZOrganizationCallingSettingsSchema;

export const ZUpdateCallingSettingsRequestSchema = z.object({
  requireConsent: ZJsonBooleanSchema.optional(),
  maxConcurrentCalls: z.number().int().min(1).max(MAX_CONCURRENT_CALLS_SETTING).nullable().optional(),
});
export const ZUpdateCallingSettingsResponseSchema = ZOrganizationCallingSettingsSchema;
