import { z } from "zod";
import { stepTypes } from "@/db/schema/kinds";
import { MAX_STEP_DAY_OFFSET, MAX_STEP_DELAY_SECONDS, MAX_TEMPLATE_BODY_LENGTH, MAX_TEMPLATE_SUBJECT_LENGTH } from "./limits";
import { idText } from "./text";

export const ZAgentIdSchema = idText().describe("Agent ID, format `agent.<id>`.");

export const ZAgentStatusSchema = z.enum(["ACTIVE", "PAUSED", "ARCHIVED"]).describe("Agent status.");

export const ZAgentSummarySchema = z
  .object({
    agentId: z.string().describe("Agent ID, format `agent.<id>`."),
    name: z.string().describe("Agent name."),
    status: ZAgentStatusSchema,
  })
  .describe("Agent summary.");

export const ZInputVariableSchema = z
  .object({
    slug: z.string().describe("Key to send when scheduling a sequence (top-level property or `customVariables` key)."),
    displayName: z.string(),
    description: z.string(),
  })
  .describe("Input variable definition.");

export const ZExtractedVariableSchema = z
  .object({
    slug: z.string(),
    displayName: z.string(),
    description: z.string(),
    type: z.string().describe("STRING, NUMBER, BOOLEAN, DROPDOWN or DATE/TIME."),
    dropdownOptions: z.array(z.string()).optional().describe("Present for DROPDOWN variables."),
    datetimeFormat: z.string().optional().describe("Present for DATE/TIME variables, e.g. `yyyy-MM-dd HH:mm:ss`."),
    formatDatetimeInUtc: z.boolean().optional().describe("Present for DATE/TIME variables."),
  })
  .describe("Extracted variable definition.");

export const ZOutcomeSchema = z
  .object({
    outcomeDefinitionId: z.string(),
    name: z.string().describe("Matches `callResult.outcomes[].name` in call results."),
  })
  .describe("Outcome definition.");

export const ZTimeWindowSchema = z.object({
  startTime: z.number().int().min(0).max(1440).describe("Minutes after local midnight (0–1440)."),
  endTime: z.number().int().min(0).max(1440).describe("Minutes after local midnight (0–1440)."),
});

export const ZStepSchema = z.object({
  stepType: z.enum(stepTypes).describe("`CALL`, `EMAIL` (needs the contact's `toEmailAddress`) or `SMS`."),
  subject: z.string().max(MAX_TEMPLATE_SUBJECT_LENGTH).nullable().optional().describe("EMAIL: the subject template (`{{variable}}` placeholders, docs/sequences.md)."),
  body: z.string().max(MAX_TEMPLATE_BODY_LENGTH).nullable().optional().describe("EMAIL and SMS: the body template (plain text with `{{variable}}` placeholders; an SMS renders to at most 3 segments)."),
  delaySeconds: z.number().int().min(0).describe("Delay after the previous step ended."),
  delaySecondsMax: z.number().int().min(0).nullable().describe("Upper bound of random jitter added to the delay, or null."),
  executionWindowConfig: z.object({
    dayOffset: z.number().int().min(0),
    timeWindow: ZTimeWindowSchema,
    timezoneSource: z.enum(["contact", "agent"]).describe("`contact`: the contact's timezone; `agent`: the agent's first timezone."),
  }),
});

/** A step as the agent editor sends it: ZStepSchema with bounded delays (responses keep ZStepSchema). */
export const ZStepInputSchema = ZStepSchema.extend({
  delaySeconds: z.number().int().min(0).max(MAX_STEP_DELAY_SECONDS).describe("Delay after the previous step ended (at most a year)."),
  delaySecondsMax: z
    .number()
    .int()
    .min(0)
    .max(MAX_STEP_DELAY_SECONDS)
    .nullable()
    .describe("Upper bound of random jitter added to the delay, or null."),
  executionWindowConfig: ZStepSchema.shape.executionWindowConfig.extend({ dayOffset: z.number().int().min(0).max(MAX_STEP_DAY_OFFSET) }),
});
