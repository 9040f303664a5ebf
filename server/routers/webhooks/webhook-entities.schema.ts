import { z } from "zod";
import { webhookEventTypes } from "@/db/schema";
import { MAX_NAME_LENGTH, MAX_URL_LENGTH, MAX_WEBHOOK_AGENT_FILTER } from "@/server/schemas/limits";
import { boundedText, idText } from "@/server/schemas/text";

export const ZWebhookEndpointIdSchema = idText().describe("Webhook endpoint ID, format `webhook-endpoint.<id>`.");
export const ZWebhookDeliveryIdSchema = idText().describe("Webhook delivery ID, format `webhook-delivery.<id>`.");
export const ZWebhookDeliveryStatusSchema = z
  .enum(["pending", "succeeded", "failed", "cancelled"])
  .describe("`pending`: retries still to come; `failed`: retry schedule exhausted (replayable); `cancelled`: endpoint disabled or deleted.");

export const ZWebhookUrlSchema = boundedText(MAX_URL_LENGTH).trim().min(1, "Enter the endpoint URL.").describe("http(s) URL that receives the POSTs.");
export const ZWebhookDescriptionSchema = boundedText(MAX_NAME_LENGTH).trim();
export const ZWebhookAgentIdsSchema = z
  .array(idText())
  .max(MAX_WEBHOOK_AGENT_FILTER)
  .describe("Deliver only calls of these agents; empty = every agent of the organization.");

export const ZWebhookEventTypesSchema = z
  .array(z.enum(webhookEventTypes))
  .min(1, "Choose at least one event type.")
  .max(webhookEventTypes.length)
  .describe("What the endpoint receives: `call.result` (call results, the default) and/or `number.health_changed` (a number's health changed, docs/numbers.md).");

/** An endpoint as every procedure returns it: never its secret. */
export const ZWebhookEndpointSchema = z.object({
  endpointId: ZWebhookEndpointIdSchema,
  url: z.string(),
  description: z.string(),
  enabled: z.boolean(),
  disabledReason: z.enum(["gone", "manual"]).nullable().describe("`gone`: the receiver answered 410 Gone; `manual`: disabled by an admin."),
  disabledAt: z.string().nullable(),
  agentIds: z.array(z.string()),
  eventTypes: z.array(z.enum(webhookEventTypes)),
  secretFingerprint: z.string().describe("First 12 hex characters of SHA-256 of the current secret (tells secrets apart; not the secret)."),
  previousSecretExpiresAt: z.string().nullable().describe("While set, the previous secret still signs next to the current one."),
  secretRotatedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** Returned only by create and rotate: the secret is shown this once. */
export const ZRevealedSecretResponseSchema = z.object({
  endpoint: ZWebhookEndpointSchema,
  secret: z.string().describe("`whsec_…`: shown this once, store it now. Verify deliveries with it (Standard Webhooks)."),
});

export const ZWebhookDeliverySummarySchema = z.object({
  deliveryId: ZWebhookDeliveryIdSchema,
  endpointId: z.string(),
  kind: z.enum(["call.result", "number.health_changed", "test"]).describe("`call.result`: a call's result; `number.health_changed`: a number changed health (docs/numbers.md); `test`: a test event."),
  callId: z.string().nullable(),
  agentId: z.string().nullable(),
  messageId: z.string().describe("The `webhook-id` header: the same on every retry and replay."),
  status: ZWebhookDeliveryStatusSchema,
  attemptCount: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  lastAttemptAt: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  succeededAt: z.string().nullable(),
  createdAt: z.string(),
});

export const ZWebhookAttemptSchema = z.object({
  attemptId: z.string(),
  attemptNumber: z.number().int(),
  trigger: z.enum(["automatic", "replay", "test"]),
  url: z.string(),
  webhookTimestamp: z.number().int().describe("The `webhook-timestamp` sent (Unix seconds)."),
  attemptedAt: z.string(),
  durationMs: z.number().int(),
  statusCode: z.number().int().nullable().describe("Null when no response arrived (timeout, connection error, refused address)."),
  succeeded: z.boolean(),
  responseSnippet: z.string().describe("The first 1,024 characters of the response body."),
  error: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
});

/** The result of a send made right now (replay, test event). */
export const ZWebhookSendResultSchema = z.object({
  deliveryId: z.string(),
  outcome: z.enum(["succeeded", "retry", "failed", "cancelled"]),
  attemptNumber: z.number().int().nullable(),
  statusCode: z.number().int().nullable(),
  error: z.string().nullable(),
  endpointDisabled: z.boolean(),
});
