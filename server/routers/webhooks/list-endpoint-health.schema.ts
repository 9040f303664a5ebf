import { z } from "zod";

export const ZListEndpointHealthRequestSchema = z.object({}).optional();

export const ZEndpointHealthSchema = z.object({
  endpointId: z.string(),
  url: z.string(),
  state: z.enum(["healthy", "failing", "no-deliveries", "disabled"]),
  lastSuccessAt: z.string().nullable(),
  failingSince: z.string().nullable().describe("First failed attempt since the last success, while the latest attempt failed."),
  consecutiveFailures: z.number().int(),
  nextRetryAt: z.string().nullable(),
  lastError: z.string().nullable(),
  lastStatusCode: z.number().int().nullable(),
});

export const ZListEndpointHealthResponseSchema = z.object({ endpoints: z.array(ZEndpointHealthSchema) });
