import { z } from "zod";

const ZDayWindowSchema = z
  .object({ start: z.number().int().describe("Minutes after local midnight."), end: z.number().int().describe("Minutes after local midnight (exclusive).") })
  .nullable()
  .describe("null: no calls that day.");

export const ZCallingHoursRuleSchema = z.object({
  jurisdiction: z.string().describe("`US` (federal), `CA` (Canada), `US-FL` (a state)."),
  name: z.string(),
  week: z.array(ZDayWindowSchema).length(7).describe("Monday first."),
  closedOnHolidays: z.boolean().describe("No calls on the US federal holidays and their observed days."),
  attemptCap: z.object({ maxAttempts: z.number().int(), perHours: z.number() }).nullable(),
  notes: z.string().nullable(),
});

export const ZGetCallingHoursRequestSchema = z.object({}).optional();
export const ZGetCallingHoursResponseSchema = z.object({
  enforced: z.boolean().describe("Whether this deployment applies them at dial time (COMPLIANCE_QUIET_HOURS; off only on test servers)."),
  rules: z.array(ZCallingHoursRuleSchema).describe("Federal first; a contact gets the federal rule, its country's and its state's (the strictest wins)."),
});
export type TGetCallingHoursResponse = z.infer<typeof ZGetCallingHoursResponseSchema>;
