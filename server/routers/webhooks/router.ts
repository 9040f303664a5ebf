import { router } from "@/server/trpc/init";
import { createWebhookEndpointProcedure } from "./create-webhook-endpoint.procedure";
import { deleteWebhookEndpointProcedure } from "./delete-webhook-endpoint.procedure";
import { disableWebhookEndpointProcedure } from "./disable-webhook-endpoint.procedure";
import { getWebhookDeliveryProcedure } from "./get-webhook-delivery.procedure";
import { getWebhookEndpointProcedure } from "./get-webhook-endpoint.procedure";
import { listEndpointHealthProcedure } from "./list-endpoint-health.procedure";
import { listWebhookDeliveriesProcedure } from "./list-webhook-deliveries.procedure";
import { listWebhookEndpointsProcedure } from "./list-webhook-endpoints.procedure";
import { replayWebhookDeliveryProcedure } from "./replay-webhook-delivery.procedure";
import { rotateWebhookSecretProcedure } from "./rotate-webhook-secret.procedure";
import { sendWebhookTestEventProcedure } from "./send-webhook-test-event.procedure";
import { updateWebhookEndpointProcedure } from "./update-webhook-endpoint.procedure";

/**
 * Call-result webhook endpoints and their delivery log (dashboard only: no REST paths).
 * Reads for every member; changes, replays and test sends for admins.
 */
export const webhooksRouter = router({
  listEndpoints: listWebhookEndpointsProcedure,
  getEndpoint: getWebhookEndpointProcedure,
  createEndpoint: createWebhookEndpointProcedure,
  updateEndpoint: updateWebhookEndpointProcedure,
  disableEndpoint: disableWebhookEndpointProcedure,
  deleteEndpoint: deleteWebhookEndpointProcedure,
  rotateSecret: rotateWebhookSecretProcedure,
  listDeliveries: listWebhookDeliveriesProcedure,
  getDelivery: getWebhookDeliveryProcedure,
  replayDelivery: replayWebhookDeliveryProcedure,
  sendTestEvent: sendWebhookTestEventProcedure,
  endpointHealth: listEndpointHealthProcedure,
});
