import { and, asc, eq, isNull, lt, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { webhookDeliveries, webhookEndpoints } from "@/db/schema";
import { inngest } from "@/inngest/client";
import { webhookDeliveryRequested } from "@/inngest/events";
import { getLogger } from "@/server/observability/logger";
import { newWebhookEntityId } from "./ids";

export type CreateNumberEventDeliveriesParams = {
  organizationId: string;
  /** The event's ID (`evt_…`): the `webhook-id` of every delivery of it. */
  eventId: string;
  body: string;
  now: Date;
};

/**
 * One delivery of a `number.health_changed` event per enabled endpoint of the organization that asked for that event
 * type (an endpoint gets call results only unless it does: its `eventTypes`). The agent filter applies to call results
 * only. Idempotent per endpoint and event (unique endpoint + `webhook-id`). Returns the deliveries created: the caller
 * requests their attempts after its transaction commits (requestWebhookDeliveries).
 */
export async function createNumberEventDeliveries(db: DbOrTx, params: CreateNumberEventDeliveriesParams): Promise<string[]> {
  const endpoints = await db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.organizationId, params.organizationId),
        eq(webhookEndpoints.enabled, true),
        isNull(webhookEndpoints.deletedAt),
        sql`${webhookEndpoints.eventTypes} ? 'number.health_changed'`,
      ),
    );
  if (endpoints.length === 0) return [];
  const inserted = await db
    .insert(webhookDeliveries)
    .values(
      endpoints.map((endpoint) => ({
        id: newWebhookEntityId("webhook-delivery"),
        organizationId: params.organizationId,
        endpointId: endpoint.id,
        kind: "number.health_changed" as const,
        callId: null,
        agentId: null,
        messageId: params.eventId,
        body: params.body,
        status: "pending" as const,
        nextAttemptAt: params.now,
        createdAt: params.now,
        updatedAt: params.now,
      })),
    )
    .onConflictDoNothing({ target: [webhookDeliveries.endpointId, webhookDeliveries.messageId], where: sql`kind = 'number.health_changed'` })
    .returning({ id: webhookDeliveries.id });
  return inserted.map((row) => row.id);
}

/**
 * Starts the attempts of deliveries written by a committed transaction (deliver-webhook: the first attempt at once,
 * then the retry schedule). A send that fails (no Inngest reachable) is logged and left to the number-health sweep,
 * which requests deliveries still unattempted after a minute (findUnattemptedEventDeliveries).
 */
export async function requestWebhookDeliveries(deliveryIds: string[]): Promise<void> {
  if (deliveryIds.length === 0) return;
  try {
    await inngest.send(deliveryIds.map((deliveryId) => webhookDeliveryRequested.create({ deliveryId }, { id: `webhook-delivery:${deliveryId}` })));
  } catch (error) {
    getLogger("webhooks").warn({ deliveries: deliveryIds.length, error: error instanceof Error ? error.message : String(error) }, "could not request webhook deliveries now; the sweep will");
  }
}

/** Event deliveries (not call results: those have their own path) never attempted and created before `before`. */
export async function findUnattemptedEventDeliveries(db: DbOrTx, params: { before: Date; limit?: number }): Promise<string[]> {
  const rows = await db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.kind, "number.health_changed"),
        eq(webhookDeliveries.status, "pending"),
        eq(webhookDeliveries.attemptCount, 0),
        lt(webhookDeliveries.createdAt, params.before),
      ),
    )
    .orderBy(asc(webhookDeliveries.createdAt))
    .limit(params.limit ?? 500);
  return rows.map((row) => row.id);
}
