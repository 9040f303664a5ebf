import { z } from "zod";
import { ZAgentIdSchema } from "@/server/schemas/agent";
import { ZBulkEnrollmentResultSchema } from "@/server/schemas/enrollment";
import {
  MAX_CONTACTS_PER_REQUEST,
  MAX_DATETIME_LENGTH,
  MAX_EMAIL_LENGTH,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  MAX_NAME_LENGTH,
  MAX_PHONE_NUMBER_LENGTH,
  MAX_TIMEZONE_LENGTH,
  MAX_TITLE_CASE_FIELDS,
  MAX_VARIABLE_NAME_LENGTH,
} from "@/server/schemas/limits";
import { consentInputDocs } from "@/server/schemas/consent";
import { ZJsonBooleanSchema } from "@/server/schemas/sequence";
import { boundedText } from "@/server/schemas/text";
import type { Meta } from "@/server/trpc/init";
import { customVariableDocs } from "./enroll-one.schema";

export const enrollManyMeta: Meta = {
  openapi: {
    method: "POST",
    path: "/agents/{agentId}/schedule/sequences",
    tags: ["Enrollment"],
    summary: "Enroll many contacts",
    description: [
      "Bulk equivalent of a CSV import: 1 to 1,000 contacts. Validation is per contact: valid contacts are scheduled,",
      "invalid ones come back in `rejected` with a reason (MISSING_NAME, INVALID_NAME, MISSING_PHONE_NUMBER,",
      "INVALID_PHONE_NUMBER, DUPLICATE_PHONE_NUMBER, INVALID_TIMEZONE, INVALID_SCHEDULED_AT, MISSING_EMAIL,",
      "MISSING_INPUT_VARIABLE, INVALID_INPUT_VARIABLE, OPTED_OUT, MISSING_CONSENT, INVALID_CONSENT). A field over its length limit or holding a NUL",
      "character or an unpaired surrogate rejects that contact with its field's reason (INVALID_NAME for the name). Numbers are normalized before duplicate detection, so formatted variants of",
      "one number collide and only the first occurrence is scheduled unless `allowDuplicates`. 202 means every upfront",
      "check passed and the batch is durably recorded; the sequences are created asynchronously right after.",
      "With `groupByField`, only the first valid contact of each group is scheduled; the others wait their turn.",
    ].join(" "),
    protect: true,
    requestHeaders: z.object({
      "Idempotency-Key": z
        .string()
        .max(MAX_IDEMPOTENCY_KEY_LENGTH)
        .optional()
        .describe(
          "Idempotency-Key: at most 255 characters. A retry with the same key in this organization (within 24 h) returns the first 202 body and schedules nothing. Dedupes on the key alone, not the payload: use a new key to resubmit corrected rows.",
        ),
    }),
    errorResponses: {
      400: "INVALID_REQUEST (0 or more than 1,000 contacts, groupByField with allowDuplicates, Idempotency-Key over 255 characters, wrong types), INVALID_TIMEZONE (batch default), NO_VALID_CONTACTS (no contact passed validation; the body carries `rejected`), INVALID_REQUEST_BODY (invalid JSON)",
      401: "Missing (UNAUTHORIZED) or invalid (INVALID_API_KEY) API key",
      402: "INSUFFICIENT_CREDITS: remaining credits below 1 per accepted contact",
      404: "AGENT_NOT_FOUND: unknown agent or an agent of another organization",
      415: "UNSUPPORTED_MEDIA_TYPE: the body is not application/json",
      422: "AGENT_MISCONFIGURED: archived agent, no CALL step, or incomplete booking configuration",
    },
  },
  successStatus: 202,
  // Each contact is checked by the enrollment service, NUL characters included, so one bad contact is rejected alone.
  perItemInput: ["contacts"],
};

/** Documented as its JSON type, validated per contact by the service (a bad field rejects the contact, not the batch). */
const perContact = (type: "string" | "boolean", description: string, maxLength?: number) =>
  z
    .unknown()
    .meta({ override: { type, description, ...(maxLength === undefined ? {} : { maxLength }) } })
    .optional();

const ZBulkContactSchema = z
  .object({
    name: perContact("string", "Contact's full name (MISSING_NAME when absent, INVALID_NAME when too long).", MAX_NAME_LENGTH),
    phoneNumber: perContact("string", "E.164; formatted forms are normalized before duplicate detection.", MAX_PHONE_NUMBER_LENGTH),
    phoneNumberExt: perContact("string", "Extension, 1–10 digits.", MAX_PHONE_NUMBER_LENGTH),
    timezone: perContact(
      "string",
      "IANA timezone. Default: the batch `timezone`, else inferred from the number, else the agent's first timezone.",
      MAX_TIMEZONE_LENGTH,
    ),
    scheduledAt: perContact(
      "string",
      "Future ISO 8601 date-time for the first call (without an offset: read in the contact's timezone); the same limits as single enrollment.",
      MAX_DATETIME_LENGTH,
    ),
    toEmailAddress: perContact("string", "Contact email; required when the agent has EMAIL steps.", MAX_EMAIL_LENGTH),
    bypassCallWindows: perContact("boolean", "Ignore the agent's call windows for this contact."),
    groupByField: perContact("string", "Contact-level chaining field (overrides the batch's).", MAX_VARIABLE_NAME_LENGTH),
    customVariables: z
      .unknown()
      .meta({ override: { ...customVariableDocs.object, description: "Custom input variables as an object of strings (alternative to top-level properties)." } })
      .optional(),
    consent: z.unknown().meta({ override: consentInputDocs }).optional(),
  })
  .catchall(z.unknown().meta({ override: { ...customVariableDocs.value, description: customVariableDocs.topLevelDescription } }))
  .describe("One contact; custom input variables the agent requires are top-level strings and/or `customVariables`.");

export const ZEnrollManyRequestSchema = z.object({
  agentId: ZAgentIdSchema,
  contacts: z.array(ZBulkContactSchema).min(1).max(MAX_CONTACTS_PER_REQUEST).describe("1 to 1,000 contacts."),
  timezone: boundedText(MAX_TIMEZONE_LENGTH).optional().describe("Default IANA timezone for contacts without their own."),
  groupByField: boundedText(MAX_VARIABLE_NAME_LENGTH)
    .optional()
    .describe("Custom variable for contact chaining. Cannot be combined with allowDuplicates."),
  allowDuplicates: ZJsonBooleanSchema.optional().describe("Schedule every occurrence of a repeated number. Cannot be combined with groupByField."),
  titleCaseFields: z
    .array(boundedText(MAX_VARIABLE_NAME_LENGTH))
    .max(MAX_TITLE_CASE_FIELDS)
    .optional()
    .describe("Custom variables (and `name`) to title-case before scheduling; applied only for organizations on the normalization allowlist."),
});

export const ZEnrollManyResponseSchema = ZBulkEnrollmentResultSchema;
