import { z } from "zod";
import { ZRevealedSecretResponseSchema, ZWebhookEndpointIdSchema } from "./webhook-entities.schema";

export const ZRotateWebhookSecretRequestSchema = z.object({
  endpointId: ZWebhookEndpointIdSchema,
  graceSeconds: z
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 3600)
    .optional()
    .describe("How long the old secret keeps signing next to the new one (default 86,400 = 24 h; 0 retires it at once)."),
});
export const ZRotateWebhookSecretResponseSchema = ZRevealedSecretResponseSchema;
