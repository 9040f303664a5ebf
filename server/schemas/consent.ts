import { z } from "zod";
import { consentTypes } from "@/db/schema";
import { MAX_DATETIME_LENGTH, MAX_DESCRIPTION_LENGTH, MAX_URL_LENGTH } from "./limits";

const typeDescription =
  "`express_written` (prior express written consent, required by the TCPA for telemarketing with an artificial voice), `express`, `existing_relationship` or `other`.";

/** A consent record as returned (sequence, conversation metadata, console export). */
export const ZConsentRecordSchema = z
  .object({
    type: z.enum(consentTypes).describe(typeDescription),
    capturedAt: z.string().describe("When consent was captured (ISO 8601, UTC)."),
    source: z.string().describe("Where it was captured (a form's URL, a call, a contract…)."),
    evidenceUrl: z.string().nullable().describe("Link to the evidence; null when none was given."),
  })
  .describe("The contact's consent to be called, as recorded at enrollment.");

/**
 * The `consent` field of an enrollment contact, for the OpenAPI document only: the service validates it per contact
 * (INVALID_CONSENT / MISSING_CONSENT), so one bad record rejects its contact, not the batch.
 */
export const consentInputDocs = {
  type: "object" as const,
  description:
    "Optional consent record: `{type, capturedAt, source, evidenceUrl?}`. Required (MISSING_CONSENT without it) when the organization's “require consent” setting is on; a malformed record is INVALID_CONSENT. Stored with the sequence and returned in it and in the conversation metadata.",
  required: ["type", "capturedAt", "source"],
  additionalProperties: false,
  properties: {
    type: { type: "string" as const, enum: [...consentTypes], description: typeDescription },
    capturedAt: { type: "string" as const, format: "date-time", maxLength: MAX_DATETIME_LENGTH, description: "ISO 8601 with an offset; not in the future." },
    source: { type: "string" as const, minLength: 1, maxLength: MAX_DESCRIPTION_LENGTH, description: "Where consent was captured." },
    evidenceUrl: { type: "string" as const, format: "uri", maxLength: MAX_URL_LENGTH, description: "http(s) link to the evidence (recorded, never fetched)." },
  },
};
