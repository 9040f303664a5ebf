import { z } from "zod";

/** Per-contact rejection reasons (DESIGN §4, plus INVALID_NAME: a name that is too long or not text). */
export const rejectionReasons = [
  "MISSING_NAME",
  "INVALID_NAME",
  "MISSING_PHONE_NUMBER",
  "INVALID_PHONE_NUMBER",
  "DUPLICATE_PHONE_NUMBER",
  "INVALID_TIMEZONE",
  "INVALID_SCHEDULED_AT",
  "MISSING_EMAIL",
  "MISSING_INPUT_VARIABLE",
  "INVALID_INPUT_VARIABLE",
  "OPTED_OUT",
  "MISSING_CONSENT",
  "INVALID_CONSENT",
] as const;
export type RejectionReason = (typeof rejectionReasons)[number];

export const ZBulkRejectionSchema = z.object({
  index: z.number().int().describe("Position of the contact in the request (0-based)."),
  phoneNumber: z.string().describe("The phone number as sent."),
  reason: z.string().describe("Reason code, e.g. MISSING_NAME, DUPLICATE_PHONE_NUMBER, OPTED_OUT, MISSING_CONSENT."),
  error: z.string().describe("Human-readable explanation."),
});

/** The answer of bulk enrollment (202), also replayed for a repeated Idempotency-Key. */
export const ZBulkEnrollmentResultSchema = z
  .object({
    batchId: z.string().describe("UUID of the batch."),
    total: z.number().int().describe("Contacts submitted."),
    accepted: z.number().int().describe("Contacts that passed validation and will be scheduled."),
    rejected: z.array(ZBulkRejectionSchema).describe("Contacts that failed validation; empty when all passed."),
  })
  .describe("Bulk enrollment result.");

/*
 * The console's CSV import (dashboard only), which runs on the bulk enrollment rules.
 */

/** One row of an import preview: the bulk service's per-contact decision, nothing written. */
export const ZImportRowCheckSchema = z.discriminatedUnion("ok", [
  z.object({
    index: z.number().int(),
    ok: z.literal(true),
    dialKey: z.string().describe("Normalized number and extension: the key the bulk service detects duplicates on."),
    phoneNumber: z.string(),
    timezone: z.string(),
  }),
  z.object({ index: z.number().int(), ok: z.literal(false), reason: z.enum(rejectionReasons), error: z.string() }),
]);

/** One import batch sent through bulk enrollment. */
export const ZImportBatchResultSchema = z.object({
  batchId: z.string().nullable().describe("Null when no contact of the batch passed validation (nothing was recorded)."),
  total: z.number().int(),
  accepted: z.number().int(),
  rejected: z.array(ZBulkRejectionSchema),
  replayed: z.boolean().describe("True when the key had been used before: the first answer is returned and nothing new is scheduled."),
});

export const ZImportBatchProgressSchema = z.object({
  batchId: z.string(),
  status: z.enum(["accepted", "creating", "completed", "failed"]),
  accepted: z.number().int(),
  created: z.number().int().describe("Sequences that exist for the batch now."),
});

export type TBulkRejection = z.infer<typeof ZBulkRejectionSchema>;
export type TBulkEnrollmentResult = z.infer<typeof ZBulkEnrollmentResultSchema>;
export type TImportRowCheck = z.infer<typeof ZImportRowCheckSchema>;
export type TImportBatchResult = z.infer<typeof ZImportBatchResultSchema>;
export type TImportBatchProgress = z.infer<typeof ZImportBatchProgressSchema>;
