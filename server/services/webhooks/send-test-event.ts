import type { Db } from "@/db";
import { webhookDeliveries } from "@/db/schema";
import type { AddressPolicy } from "./address-guard";
import { buildCallEventSample } from "./call-event-sample";
import { attemptWebhookDelivery } from "./deliveries";
import { newWebhookEntityId } from "./ids";
import { getWebhookEndpointRow } from "./manage-endpoints";
import { messageIdForTestEvent } from "./signing";

export type SendWebhookTestEventParams = {
  organizationId: string;
  endpointId: string;
  /** The agent whose sample payload is sent (AGENT_NOT_FOUND when not of this organization). */
  agentId: string;
  now?: Date;
  policy?: AddressPolicy;
};

/**
 * Delivers a signed sample call result to one endpoint, now, once (no retries), and logs it as a `test` delivery.
 * Works on a disabled endpoint too, so an admin can check a receiver before enabling it again.
 */
export async function sendWebhookTestEvent(db: Db, params: SendWebhookTestEventParams) {
  const now = params.now ?? new Date();
  const endpoint = await getWebhookEndpointRow(db, params);
  const sample = await buildCallEventSample(db, { organizationId: params.organizationId, agentId: params.agentId, now });
  const deliveryId = newWebhookEntityId("webhook-delivery");
  await db.insert(webhookDeliveries).values({
    id: deliveryId,
    organizationId: params.organizationId,
    endpointId: endpoint.id,
    kind: "test",
    callId: sample.callId,
    agentId: params.agentId,
    messageId: messageIdForTestEvent(),
    body: JSON.stringify(sample),
    status: "pending",
    createdAt: now,
    updatedAt: now,
  });
  const result = await attemptWebhookDelivery(db, { deliveryId, trigger: "test", now, policy: params.policy });
  return { deliveryId, ...result };
}
