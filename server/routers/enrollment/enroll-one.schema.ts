import { z } from "zod";
import { ZAgentIdSchema } from "@/server/schemas/agent";
import { ZJsonBooleanSchema, ZSequenceSchema } from "@/server/schemas/sequence";
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
      400: "Field error: INVALID_REQUEST (missing name or phoneNumber, wrong type), INVALID_PHONE_NUMBER, INVALID_TIMEZONE, INVALID_SCHEDULED_AT, MISSING_EMAIL, MISSING_INPUT_VARIABLE, INVALID_INPUT_VARIABLE; INVALID_REQUEST_BODY for invalid JSON",
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

/** Fields of one contact, shared by single enrollment and the items of bulk enrollment (DESIGN §4). */
export const contactFieldShape = {
  name: z.string().describe("Contact's full name."),
  phoneNumber: z.string().describe("E.164, e.g. `+14155550171` (formatted forms such as `+1 (415) 555-0171` are normalized)."),
  phoneNumberExt: z.string().optional().describe("Extension, digits only."),
  toEmailAddress: z.string().optional().describe("Contact email; required when the agent's sequence has EMAIL steps."),
  timezone: z.string().optional().describe("IANA timezone. Default: inferred from the number's area code, then the agent's first timezone."),
  scheduledAt: z
    .string()
    .optional()
    .describe(
      "Future ISO 8601 date-time for the first call. Without an offset it is read in the zone the scheduler uses (the contact's timezone). The agent's call window still applies unless `bypassCallWindows`.",
    ),
  bypassCallWindows: ZJsonBooleanSchema.optional().describe("Ignore the agent's call windows for this sequence."),
  groupByField: z.string().optional().describe("Name of a custom variable: contacts of this agent sharing its value are chained."),
  customVariables: z
    .record(z.string(), z.unknown().meta({ override: { type: "string" } }))
    .optional()
    .describe("Custom input variables as an object of strings (alternative to top-level properties)."),
};

export const ZEnrollOneRequestSchema = z
  .object({ agentId: ZAgentIdSchema, ...contactFieldShape })
  .catchall(z.unknown().meta({ override: { type: "string", description: "Custom input variable (string), keyed by its slug." } }));

export const ZEnrollOneResponseSchema = z.object({ sequence: ZSequenceSchema });
