import { z } from "zod";
import { CARRIER_NAMES } from "@/server/carriers/registry";
import { ZCalendarIntegrationSchema } from "./integration-entities.schema";

export const ZGetIntegrationsRequestSchema = z.object({}).optional();

export const ZGetIntegrationsResponseSchema = z.object({
  calendar: ZCalendarIntegrationSchema,
  voiceEngine: z.object({
    engine: z.enum(CARRIER_NAMES),
    facts: z.array(z.object({ label: z.string(), value: z.string() })),
  }),
  agentNumbers: z.object({
    agents: z.array(z.object({ agentId: z.string(), name: z.string(), status: z.enum(["ACTIVE", "PAUSED", "ARCHIVED"]), phoneNumbers: z.array(z.string()) })),
    truncated: z.boolean(),
  }),
});
