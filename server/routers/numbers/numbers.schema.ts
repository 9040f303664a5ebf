import { z } from "zod";
import { numberHealthStates } from "@/db/schema";
import { queryFlag, queryInteger } from "@/server/routers/conversations/query-params";
import { MAX_NAME_LENGTH, MAX_PHONE_NUMBER_LENGTH } from "@/server/schemas/limits";
import { boundedText, idText } from "@/server/schemas/text";
import { PROVISIONING_CARRIERS } from "@/server/services/numbers/number-provider";
import type { Meta } from "@/server/trpc/init";
import { ZAvailableNumberSchema, ZNumberSchema } from "./number.schema";

const TAGS = ["Numbers"];
const AUTH = { 401: "Missing (UNAUTHORIZED) or invalid (INVALID_API_KEY) API key" };
const CARRIER = {
  502: "PROVIDER_ERROR: the carrier refused (its error code in the message)",
  503: "PROVIDER_UNAVAILABLE: the carrier did not answer; retry later",
};

/** Which carrier to search or buy from; the number's SMS then go through it (docs/carriers.md "Telnyx"). */
const ZProvisioningCarrierSchema = z
  .enum(PROVISIONING_CARRIERS, { error: `must be one of ${PROVISIONING_CARRIERS.join(", ")}` })
  .optional()
  .describe("The carrier: `twilio` (default) or `telnyx`.");

export const ZNumberIdSchema = idText().regex(/^number\.[0-9a-z]{26}$/, "must be a number ID (number.<id>)").describe("`number.<id>`, from GET /numbers.");

export const listNumbersMeta: Meta = {
  openapi: {
    method: "GET",
    path: "/numbers",
    tags: TAGS,
    summary: "List the organization's numbers",
    description:
      "The organization's phone numbers (released ones left out), each with its capabilities, how it was obtained, its health (`healthy`, `watch`, `resting`) and the agents whose pools hold it. Only these numbers may be in pools, send SMS or take callbacks (docs/numbers.md).",
    protect: true,
    errorResponses: AUTH,
  },
};
export const ZListNumbersRequestSchema = z.object({});
export const ZListNumbersResponseSchema = z.object({ numbers: z.array(ZNumberSchema) });

export const searchAvailableNumbersMeta: Meta = {
  openapi: {
    method: "GET",
    path: "/numbers/available",
    tags: TAGS,
    summary: "Search numbers to buy",
    description: "Numbers the carrier offers now, by area code, region or digits they contain. Nothing is reserved: buy one with POST /numbers.",
    protect: true,
    errorResponses: { 400: "INVALID_REQUEST (a filter, naming it)", ...AUTH, ...CARRIER },
  },
};
export const ZSearchAvailableNumbersRequestSchema = z.object({
  country: z
    .string()
    .max(2)
    .regex(/^[A-Z]{2}$/, "must be an ISO 3166-1 alpha-2 country code such as US")
    .optional()
    .describe("ISO 3166-1 alpha-2 (default `US`)."),
  areaCode: z.string().max(3).regex(/^[2-9]\d{2}$/, "must be a three-digit North American area code").optional().describe("North American area code, e.g. `212`."),
  region: z.string().max(2).regex(/^[A-Z]{2}$/, "must be a two-letter state or province code such as NY").optional().describe("State or province, e.g. `NY`."),
  contains: z
    .string()
    .max(10)
    .regex(/^[0-9*]{2,10}$/, "must be 2 to 10 digits, `*` matching any digit")
    .optional()
    .describe("Digits the number contains (`*` matches any digit)."),
  sms: queryFlag("Only numbers that can also send SMS (`true`)."),
  limit: queryInteger({ min: 1, max: 50, description: "At most this many (default 20)." }).optional(),
  carrier: ZProvisioningCarrierSchema,
});
export const ZSearchAvailableNumbersResponseSchema = z.object({ numbers: z.array(ZAvailableNumberSchema) });

export const getNumberMeta: Meta = {
  openapi: {
    method: "GET",
    path: "/numbers/{numberId}",
    tags: TAGS,
    summary: "Get a number",
    description: "One of the organization's numbers, released ones included (a caller-ID validation's outcome stays readable).",
    protect: true,
    errorResponses: { 400: "INVALID_REQUEST: not a number ID", ...AUTH, 404: "NUMBER_NOT_FOUND (also for another organization's number)" },
  },
};
export const ZGetNumberRequestSchema = z.object({ numberId: ZNumberIdSchema });
export const ZNumberResponseSchema = z.object({ number: ZNumberSchema });

export const acquireNumberMeta: Meta = {
  openapi: {
    method: "POST",
    path: "/numbers",
    tags: TAGS,
    summary: "Buy a number, or claim one of the platform account",
    description: [
      "`source: purchased` (default) buys the number from the carrier with its voice, status and SMS webhooks set to this deployment;",
      "`platform-account` claims a number already in the platform's carrier account that no organization owns (its webhooks are pointed here).",
      "A refused purchase leaves nothing behind. To use a number you own elsewhere as caller ID, start a caller-ID validation instead.",
    ].join(" "),
    protect: true,
    errorResponses: {
      400: "INVALID_PHONE_NUMBER (phoneNumber), INVALID_REQUEST (not in the platform account)",
      ...AUTH,
      403: "FORBIDDEN: admins only",
      409: "NUMBER_OWNED_ELSEWHERE (another organization owns it), CONFLICT (already yours, disputed, or no longer available)",
      ...CARRIER,
    },
  },
};
export const ZAcquireNumberRequestSchema = z.object({
  phoneNumber: boundedText(MAX_PHONE_NUMBER_LENGTH).describe("The number, E.164 (from GET /numbers/available)."),
  source: z.enum(["purchased", "platform-account"]).optional().describe("`purchased` (default) or `platform-account`."),
  carrier: ZProvisioningCarrierSchema,
}).meta({ examples: [{ phoneNumber: "+12125550142", source: "purchased" }] });

export const updateNumberMeta: Meta = {
  openapi: {
    method: "PATCH",
    path: "/numbers/{numberId}",
    tags: TAGS,
    summary: "Set a number's daily call cap",
    description: "`dailyCallCap`: calls a day from this number (1–10,000); null returns to the deployment's default (NUMBER_DAILY_CALL_CAP, 100).",
    protect: true,
    errorResponses: { 400: "INVALID_REQUEST (dailyCallCap)", ...AUTH, 403: "FORBIDDEN: admins only", 404: "NUMBER_NOT_FOUND" },
  },
};
export const ZUpdateNumberRequestSchema = z.object({
  numberId: ZNumberIdSchema,
  dailyCallCap: z.number().int().min(1).max(10_000).nullable().optional().describe("Calls a day; null for the default."),
}).meta({ examples: [{ numberId: "number.01jfczz8x3q4w5e6r7t8y9u0i1", dailyCallCap: 80 }] });

export const releaseNumberMeta: Meta = {
  openapi: {
    method: "DELETE",
    path: "/numbers/{numberId}",
    tags: TAGS,
    summary: "Release a number",
    description:
      "The organization lets the number go: a bought number is given back to the carrier, a verified caller ID is deleted, a platform-account number stays in the platform account owned by nobody. It leaves every pool; its calls and texts are refused from then on. If the carrier refuses, the number stays yours.",
    protect: true,
    errorResponses: { 400: "INVALID_REQUEST: not a number ID", ...AUTH, 403: "FORBIDDEN: admins only", 404: "NUMBER_NOT_FOUND", ...CARRIER },
  },
};
export const ZReleaseNumberRequestSchema = z.object({ numberId: ZNumberIdSchema });

export const startCallerIdValidationMeta: Meta = {
  openapi: {
    method: "POST",
    path: "/numbers/caller-id-validations",
    tags: TAGS,
    summary: "Prove a number with a validation call",
    description: [
      "Bring your own number as outbound caller ID, or prove a disputed one: the carrier calls the number and whoever answers enters `validationCode`.",
      "The number is `verifying` until then, and becomes yours (`active`) when the code is entered; read it with GET /numbers/{numberId}.",
    ].join(" "),
    protect: true,
    errorResponses: {
      400: "INVALID_PHONE_NUMBER (phoneNumber)",
      ...AUTH,
      403: "FORBIDDEN: admins only",
      409: "NUMBER_OWNED_ELSEWHERE (another organization owns it), CONFLICT (already yours)",
      ...CARRIER,
    },
  },
};
export const ZStartCallerIdValidationRequestSchema = z.object({
  phoneNumber: boundedText(MAX_PHONE_NUMBER_LENGTH).describe("The number to prove, E.164."),
  friendlyName: boundedText(MAX_NAME_LENGTH).optional().describe("A name for it (default: the number)."),
}).meta({ examples: [{ phoneNumber: "+14155550123", friendlyName: "Main office" }] });
export const ZStartCallerIdValidationResponseSchema = z.object({
  number: ZNumberSchema,
  validationCode: z.string().describe("The code to enter on the validation call."),
});

export const getNumberDaysMeta: Meta = {
  openapi: {
    method: "GET",
    path: "/numbers/{numberId}/days",
    tags: TAGS,
    summary: "A number's daily calls and health",
    description: [
      "One of the organization's numbers, its health (state, the reason in words and figures, `restingUntil`) and one entry per UTC day of the last `days` (today included, oldest first; days without calls are zeros):",
      "calls placed, answered by a person, short calls (< 10 s), voicemail, no answer, busy, failed, opt-outs, SMS STOPs, the STIR/SHAKEN attestations and the day's answer rate.",
      "What the console's Numbers page charts (docs/numbers.md \"Number health\").",
    ].join(" "),
    protect: true,
    errorResponses: { 400: "INVALID_REQUEST: not a number ID, or `days` outside 1–90", ...AUTH, 404: "NUMBER_NOT_FOUND (also for another organization's number)" },
  },
};
export const ZGetNumberDaysRequestSchema = z.object({
  numberId: ZNumberIdSchema,
  days: queryInteger({ min: 1, max: 90, description: "Days of history, today (UTC) included (default 30)." }).optional(),
});
export const ZNumberDaySchema = z
  .object({
    day: z.string().describe("UTC day, `YYYY-MM-DD`."),
    placed: z.number().int().describe("Dialed calls that ended, whatever the outcome."),
    answered: z.number().int().describe("Answered by a person (not a machine nor a voicemail greeting)."),
    shortCalls: z.number().int().describe("Answered by a person and over in less than 10 seconds."),
    voicemail: z.number().int(),
    noAnswer: z.number().int(),
    busy: z.number().int(),
    failed: z.number().int().describe("Carrier failures and invalid numbers: they say nothing about the number's reputation."),
    optOuts: z.number().int().describe("Calls that ended `Opted Out`."),
    stops: z.number().int().describe("SMS STOPs (and variants) sent to the number."),
    attestation: z
      .object({ A: z.number().int(), B: z.number().int(), C: z.number().int(), none: z.number().int() })
      .describe("Calls by the STIR/SHAKEN attestation the carrier reported (`none`: none reported)."),
    answerRate: z.number().nullable().describe("answered ÷ (answered + voicemail + noAnswer + busy); null without such calls."),
  })
  .describe("What one number did on one UTC day.");
export const ZGetNumberDaysResponseSchema = z
  .object({
    numberId: z.string().describe("`number.<id>`."),
    phoneNumber: z.string().describe("E.164."),
    health: z
      .object({
        state: z.enum(numberHealthStates).describe("`healthy`, `watch` or `resting`."),
        reason: z.string().nullable().describe("Why, in words and figures."),
        changedAt: z.string().nullable().describe("When the state last changed (ISO 8601)."),
        restingUntil: z.string().nullable().describe("When a resting number comes back (under `watch`)."),
      })
      .describe("Number health (docs/numbers.md)."),
    dailyCallCap: z.number().int().describe("Calls a day from this number (its own cap or the deployment's default)."),
    inRotation: z.boolean().describe("The dialer may use it now: active, places calls, not resting."),
    days: z.array(ZNumberDaySchema).describe("One entry per UTC day, oldest first."),
  })
  .meta({
    examples: [
      {
        numberId: "number.01jfczz8x3q4w5e6r7t8y9u0i1",
        phoneNumber: "+12125550142",
        health: {
          state: "resting",
          reason: "answered 2 of 46 calls (4 %) against 39 % for your other numbers to the same places and hours",
          changedAt: "2026-03-02T16:04:11.000Z",
          restingUntil: "2026-03-05T16:04:11.000Z",
        },
        dailyCallCap: 100,
        inRotation: false,
        days: [
          { day: "2026-03-01", placed: 61, answered: 22, shortCalls: 3, voicemail: 14, noAnswer: 20, busy: 2, failed: 3, optOuts: 1, stops: 0, attestation: { A: 0, B: 0, C: 0, none: 61 }, answerRate: 0.379 },
          { day: "2026-03-02", placed: 48, answered: 2, shortCalls: 1, voicemail: 19, noAnswer: 24, busy: 1, failed: 2, optOuts: 0, stops: 1, attestation: { A: 0, B: 0, C: 0, none: 48 }, answerRate: 0.043 },
        ],
      },
    ],
  });
export type TGetNumberDaysResponse = z.infer<typeof ZGetNumberDaysResponseSchema>;
