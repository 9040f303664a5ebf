import { rotateWebhookSecret } from "@/server/services/webhooks/manage-endpoints";
import { requireRole } from "@/server/trpc/init";
import { ZRotateWebhookSecretRequestSchema, ZRotateWebhookSecretResponseSchema } from "./rotate-webhook-secret.schema";

export const rotateWebhookSecretProcedure = requireRole("admin")
  .input(ZRotateWebhookSecretRequestSchema)
  .output(ZRotateWebhookSecretResponseSchema)
  .mutation(({ ctx, input }) =>
    rotateWebhookSecret(ctx.db, {
      organizationId: ctx.auth.organizationId,
      endpointId: input.endpointId,
      graceSeconds: input.graceSeconds,
      now: ctx.now(),
    }),
  );
