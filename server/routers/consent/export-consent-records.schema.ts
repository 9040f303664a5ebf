import { z } from "zod";
import { ZConsentRecordSchema } from "@/server/schemas/consent";
import { ZCallDisclosuresSchema } from "@/server/schemas/disclosures";
import { boundedInstant } from "@/server/schemas/instant";
import { MAX_ID_LENGTH } from "@/server/schemas/limits";
import { boundedText } from "@/server/schemas/text";

/** The longest range one export covers. */
export const MAX_CONSENT_EXPORT_DAYS = 366;

const ZInstantSchema = boundedInstant();

export const ZExportConsentRecordsRequestSchema = z
  .object({
    from: ZInstantSchema.describe("Enrollments from this instant (inclusive)."),
    to: ZInstantSchema.describe("Enrollments before this instant (exclusive)."),
    after: z
      .object({ enrolledAt: ZInstantSchema, sequenceId: boundedText(MAX_ID_LENGTH) })
      .nullable()
      .describe("The previous chunk's `nextAfter`; null for the first chunk."),
  })
  .refine((input) => Date.parse(input.from) < Date.parse(input.to), { message: "from must be before to", path: ["to"] })
  .refine((input) => Date.parse(input.to) - Date.parse(input.from) <= MAX_CONSENT_EXPORT_DAYS * 86_400_000, {
    message: `the range must be at most ${MAX_CONSENT_EXPORT_DAYS} days`,
    path: ["to"],
  });

export const ZConsentExportRowSchema = z.object({
  sequenceId: z.string(),
  agentId: z.string(),
  name: z.string(),
  phoneNumber: z.string(),
  enrolledAt: z.string().describe("When the contact was enrolled (ISO 8601)."),
  consent: ZConsentRecordSchema,
  calls: z
    .array(z.object({ callId: z.string(), dialedAt: z.string().nullable(), disclosures: ZCallDisclosuresSchema }))
    .describe("The contact's dialed calls with their disclosures audit trail (what was said, when, recording on or declined)."),
});

export const ZExportConsentRecordsResponseSchema = z.object({
  records: z.array(ZConsentExportRowSchema),
  nextAfter: z.object({ enrolledAt: z.string(), sequenceId: z.string() }).nullable().describe("Pass as `after` for the next chunk; null after the last one."),
});
export type TExportConsentRecordsResponse = z.infer<typeof ZExportConsentRecordsResponseSchema>;
