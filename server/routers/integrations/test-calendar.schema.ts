import { z } from "zod";
import { ZCalendarIntegrationSchema } from "./integration-entities.schema";

export const ZTestCalendarRequestSchema = z.object({}).optional();

export const ZTestCalendarResponseSchema = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), checkedAt: z.string(), permissions: z.array(z.string()), integration: ZCalendarIntegrationSchema }),
  z.object({ ok: z.literal(false), message: z.string(), integration: ZCalendarIntegrationSchema }),
]);
