import { z } from "zod";
import { CUSTOM_PATTERN_LIMITS, customPatternNameProblem, customPatternProblem, REDACTION_CATEGORIES } from "@/server/services/privacy/redaction";
import { RETENTION_DAYS } from "@/server/services/privacy/retention-settings";

const ZCustomPatternSchema = z
  .object({
    name: z.string().max(CUSTOM_PATTERN_LIMITS.nameLength).describe("Lowercase letters, digits and dashes: the marker is `[redacted:<name>]`."),
    pattern: z.string().max(CUSTOM_PATTERN_LIMITS.patternLength).describe("A JavaScript regular expression, matched case-insensitively."),
  })
  .superRefine((value, ctx) => {
    const name = customPatternNameProblem(value.name);
    if (name) ctx.addIssue({ code: "custom", path: ["name"], message: `The name ${name}.` });
    const pattern = customPatternProblem(value.pattern);
    if (pattern) ctx.addIssue({ code: "custom", path: ["pattern"], message: `The pattern ${pattern}.` });
  });

export const ZOrganizationPrivacySettingsSchema = z.object({
  redactionCategories: z
    .array(z.enum(REDACTION_CATEGORIES))
    .describe(
      "Built-in categories removed from transcripts, analysis, webhooks, the events feed and recordings: card, ssn, bank-account (IBANs too), routing-number, date-of-birth, email, phone. Dates, times, prices, percentages, ZIP codes and order numbers are kept.",
    ),
  redactionPatterns: z.array(z.object({ name: z.string(), pattern: z.string() })).describe("The organization's own patterns."),
  retentionDays: z.number().int().nullable().describe("Days recordings, transcripts and analysis are kept after a call ended; null = no organization limit."),
  keepRecordings: z.boolean().describe("False: no recording is kept at all (\"do not keep\")."),
});
export type TOrganizationPrivacySettings = z.infer<typeof ZOrganizationPrivacySettingsSchema>;

export const ZGetPrivacySettingsRequestSchema = z.object({}).optional();
export const ZGetPrivacySettingsResponseSchema = ZOrganizationPrivacySettingsSchema;

export const ZUpdatePrivacySettingsRequestSchema = z.object({
  redactionCategories: z
    .array(z.enum(REDACTION_CATEGORIES))
    .max(REDACTION_CATEGORIES.length)
    .optional()
    .transform((value) => (value ? [...new Set(value)] : value)),
  redactionPatterns: z
    .array(ZCustomPatternSchema)
    .max(CUSTOM_PATTERN_LIMITS.count)
    .optional()
    .superRefine((patterns, ctx) => {
      const names = (patterns ?? []).map((entry) => entry.name);
      if (new Set(names).size !== names.length) ctx.addIssue({ code: "custom", message: "Each custom pattern needs its own name." });
    }),
  retentionDays: z.number().int().min(RETENTION_DAYS.min).max(RETENTION_DAYS.max).nullable().optional(),
  keepRecordings: z.boolean().optional(),
});
export const ZUpdatePrivacySettingsResponseSchema = ZOrganizationPrivacySettingsSchema;
