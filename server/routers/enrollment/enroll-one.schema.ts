import { z } from "zod";
import { ZAgentIdSchema } from "@/server/schemas/agent";
import {
  MAX_DATETIME_LENGTH,
  MAX_EMAIL_LENGTH,
  MAX_NAME_LENGTH,
  MAX_PHONE_NUMBER_LENGTH,
  MAX_SCHEDULE_AHEAD_DAYS,
  MAX_TIMEZONE_LENGTH,
  MAX_VARIABLE_NAME_LENGTH,
  MAX_VARIABLE_VALUE_LENGTH,
  MAX_VARIABLES_PER_CONTACT,
} from "@/server/schemas/limits";
import { consentInputDocs } from "@/server/schemas/consent";
import { ZJsonBooleanSchema, ZSequenceSchema } from "@/server/schemas/sequence";
import { boundedText } from "@/server/schemas/text";
import type { Meta } from "@/server/trpc/init";

export const enrollOneMeta: Meta = {
  openapi: {
    method: "POST",
    path: "/agents/{agentId}/schedule/sequence",
    tags: ["Enrollment"],
    summary: "Enroll one contact",
    description: [
      "Schedules one outbound sequence (real-time, per-contact integrations). The phone number is normalized to E.164;",
      "the timezone is the body's, else inferred from the number's area code, else the agent's first timezone.",
      "Custom input variables are sent as top-level string properties and/or in `customVariables`; every variable the",
      "agent requires must be present, undeclared ones are stored too (usable as cancel references).",
      "With `groupByField`, contacts of this agent sharing that variable's value are chained: only the first is",
      "scheduled, the next one when the previous call ends without Goal Completed. Paused agents accept enrollments",
      "(calls wait until the agent is resumed).",
    ].join(" "),
    protect: true,
    errorResponses: {
      400: "Field error: INVALID_REQUEST (missing name or phoneNumber, wrong type), INVALID_PHONE_NUMBER, INVALID_TIMEZONE, INVALID_SCHEDULED_AT, MISSING_EMAIL, MISSING_INPUT_VARIABLE, INVALID_INPUT_VARIABLE, MISSING_CONSENT (the organization requires consent records), INVALID_CONSENT; INVALID_REQUEST_BODY for invalid JSON",
      401: "Missing (UNAUTHORIZED) or invalid (INVALID_API_KEY) API key",
      402: "INSUFFICIENT_CREDITS: no credit left this month",
      404: "AGENT_NOT_FOUND: unknown agent or an agent of another organization",
      409: "OPTED_OUT: the number opted out in this organization",
      415: "UNSUPPORTED_MEDIA_TYPE: the body is not application/json",
      422: "AGENT_MISCONFIGURED: archived agent, no CALL step, or incomplete booking configuration",
    },
  },
  successStatus: 201,
};

/**
 * How custom input variables are documented. They are validated by the enrollment service (INVALID_INPUT_VARIABLE
 * for a non-string value, an oversized or unsafe name or value, or more than MAX_VARIABLES_PER_CONTACT of them), so a
 * bulk request rejects the one contact, not the batch; the OpenAPI document still shows their limits.
 */
export const customVariableDocs = {
  value: { type: "string", maxLength: MAX_VARIABLE_VALUE_LENGTH },
  object: {
    type: "object",
    maxProperties: MAX_VARIABLES_PER_CONTACT,
    propertyNames: { minLength: 1, maxLength: MAX_VARIABLE_NAME_LENGTH },
    additionalProperties: { type: "string", maxLength: MAX_VARIABLE_VALUE_LENGTH },
  },
  topLevelDescription: `Custom input variable (string, at most ${MAX_VARIABLE_VALUE_LENGTH.toLocaleString("en-US")} characters), keyed by its slug (at most ${MAX_VARIABLE_NAME_LENGTH} characters); at most ${MAX_VARIABLES_PER_CONTACT} per contact, top level and customVariables together.`,
} as const;

/** Fields of one contact, shared by single enrollment and the items of bulk enrollment (DESIGN §4). */
export const contactFieldShape = {
  name: boundedText(MAX_NAME_LENGTH).describe("Contact's full name."),
  phoneNumber: boundedText(MAX_PHONE_NUMBER_LENGTH).describe(
    "E.164, e.g. `+14155550171` (formatted forms such as `+1 (415) 555-0171` are normalized).",
  ),
  phoneNumberExt: boundedText(MAX_PHONE_NUMBER_LENGTH).optional().describe("Extension, 1–10 digits."),
  toEmailAddress: boundedText(MAX_EMAIL_LENGTH).optional().describe("Contact email; required when the agent's sequence has EMAIL steps."),
  timezone: boundedText(MAX_TIMEZONE_LENGTH)
    .optional()
    .describe("IANA timezone. Default: inferred from the number's area code, then the agent's first timezone."),
  scheduledAt: boundedText(MAX_DATETIME_LENGTH)
    .optional()
    .describe(
      `Future ISO 8601 date-time for the first call, at most ${MAX_SCHEDULE_AHEAD_DAYS} days ahead, with a four-digit year and a UTC offset within ±14:00. Without an offset it is read in the zone the scheduler uses (the contact's timezone). The agent's call window still applies unless \`bypassCallWindows\`.`,
    ),
  bypassCallWindows: ZJsonBooleanSchema.optional().describe("Ignore the agent's call windows for this sequence."),
  groupByField: boundedText(MAX_VARIABLE_NAME_LENGTH)
    .optional()
    .describe("Name of a custom variable: contacts of this agent sharing its value are chained."),
  customVariables: z
    .record(z.string(), z.unknown())
    .meta({ override: customVariableDocs.object })
    .optional()
    .describe("Custom input variables as an object of strings (alternative to top-level properties)."),
  // Validated by the service (INVALID_CONSENT / MISSING_CONSENT), so a bad record rejects one bulk contact, not the batch.
  consent: z.unknown().meta({ override: consentInputDocs }).optional(),
};

export const ZEnrollOneRequestSchema = z
  .object({ agentId: ZAgentIdSchema, ...contactFieldShape })
  .catchall(z.unknown().meta({ override: { ...customVariableDocs.value, description: customVariableDocs.topLevelDescription } }));

export const ZEnrollOneResponseSchema = z.object({ sequence: ZSequenceSchema });
