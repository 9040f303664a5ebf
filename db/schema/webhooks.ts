import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { organizations } from "./organizations";

/**
 * What an endpoint can receive: `call.result` (every endpoint, the default) and `number.health_changed` (a number of
 * the organization changed health, docs/numbers.md "Number health"), which an endpoint receives only when it asks for it.
 */
export const webhookEventTypes = ["call.result", "number.health_changed"] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

/** `gone`: the endpoint answered 410 Gone; `manual`: an admin disabled it. */
export type WebhookDisabledReason = "gone" | "manual";

/**
 * A customer's call-result webhook endpoint. Secrets (`whsec_…`) are stored AES-256-GCM encrypted (server/crypto),
 * bound to the endpoint ID, and returned only once: on creation and on rotation.
 * During a rotation's grace period the previous secret signs too (two signatures in `webhook-signature`).
 */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    description: text("description").notNull().default(""),
    encryptedSecret: text("encrypted_secret").notNull(),
    /** First 12 hex chars of SHA-256(secret): tells two secrets apart without revealing either. */
    secretFingerprint: text("secret_fingerprint").notNull(),
    previousEncryptedSecret: text("previous_encrypted_secret"),
    previousSecretExpiresAt: timestamp("previous_secret_expires_at", { withTimezone: true, mode: "date" }),
    secretRotatedAt: timestamp("secret_rotated_at", { withTimezone: true, mode: "date" }),
    enabled: boolean("enabled").notNull().default(true),
    disabledReason: text("disabled_reason").$type<WebhookDisabledReason>(),
    disabledAt: timestamp("disabled_at", { withTimezone: true, mode: "date" }),
    /** Only calls of these agents are delivered; empty = every agent of the organization. */
    agentIds: jsonb("agent_ids").$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    /** The events sent to this endpoint; the agent filter applies to call results only. */
    eventTypes: jsonb("event_types").$type<WebhookEventType[]>().notNull().default(sql`'["call.result"]'::jsonb`),
    createdByUserId: text("created_by_user_id"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    /** Soft delete: the delivery log of a deleted endpoint stays readable. */
    deletedAt: timestamp("deleted_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [index("webhook_endpoints_org_idx").on(t.organizationId, t.createdAt)],
);

export type WebhookDeliveryKind = "call.result" | "number.health_changed" | "test";
/** `pending`: attempts (or retries) still to come; `failed`: the retry schedule is exhausted; `cancelled`: endpoint disabled or deleted. */
export type WebhookDeliveryStatus = "pending" | "succeeded" | "failed" | "cancelled";

/**
 * One message to one endpoint. `body` is the exact JSON that is signed and sent on every attempt and replay;
 * `messageId` is the `webhook-id` header (derived from the call ID, so it is the same on every retry and replay).
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    endpointId: text("endpoint_id").notNull().references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    kind: text("kind").$type<WebhookDeliveryKind>().notNull(),
    /** No foreign key: the log outlives a call's deletion, and test events carry a sample call ID. */
    callId: text("call_id"),
    agentId: text("agent_id"),
    messageId: text("message_id").notNull(),
    body: text("body").notNull(),
    status: text("status").$type<WebhookDeliveryStatus>().notNull().default("pending"),
    attemptCount: integer("attempt_count").notNull().default(0),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    lastAttemptAt: timestamp("last_attempt_at", { withTimezone: true, mode: "date" }),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true, mode: "date" }),
    succeededAt: timestamp("succeeded_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    // A redelivered `call/analyzed` event finds the existing delivery instead of sending the call twice.
    uniqueIndex("webhook_deliveries_endpoint_call_idx").on(t.endpointId, t.callId).where(sql`kind = 'call.result'`),
    // One delivery per endpoint and number event (its `webhook-id`).
    uniqueIndex("webhook_deliveries_endpoint_event_idx").on(t.endpointId, t.messageId).where(sql`kind = 'number.health_changed'`),
    // The number-health sweep's scan: event deliveries whose attempts were never requested (server/services/webhooks/event-deliveries.ts).
    index("webhook_deliveries_unsent_events_idx").on(t.createdAt).where(sql`kind = 'number.health_changed' and status = 'pending' and attempt_count = 0`),
    // Delivery IDs are time-ordered ULIDs: the log pages by ID.
    index("webhook_deliveries_org_id_idx").on(t.organizationId, t.id),
    index("webhook_deliveries_endpoint_id_idx").on(t.endpointId, t.id),
    index("webhook_deliveries_call_idx").on(t.callId),
  ],
);

/** `automatic`: the first try and scheduled retries; `replay`: re-sent by a user; `test`: a "send test event". */
export type WebhookAttemptTrigger = "automatic" | "replay" | "test";

/** Every HTTP attempt of a delivery, successful or not. */
export const webhookDeliveryAttempts = pgTable(
  "webhook_delivery_attempts",
  {
    id: text("id").primaryKey(),
    deliveryId: text("delivery_id").notNull().references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    /** 1-based, over all attempts of the delivery (replays continue the count). */
    attemptNumber: integer("attempt_number").notNull(),
    trigger: text("trigger").$type<WebhookAttemptTrigger>().notNull(),
    url: text("url").notNull(),
    /** The `webhook-timestamp` sent (seconds). */
    webhookTimestamp: integer("webhook_timestamp").notNull(),
    attemptedAt: timestamp("attempted_at", { withTimezone: true, mode: "date" }).notNull(),
    durationMs: integer("duration_ms").notNull(),
    /** Null when no response arrived (timeout, connection error, refused address). */
    statusCode: integer("status_code"),
    succeeded: boolean("succeeded").notNull(),
    responseSnippet: text("response_snippet").notNull().default(""),
    error: text("error"),
    /** When the next automatic attempt is due after this one, if any. */
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [uniqueIndex("webhook_delivery_attempts_delivery_idx").on(t.deliveryId, t.attemptNumber)],
);
