import { z } from "zod";
import { ZCalendarIntegrationSchema } from "./integration-entities.schema";

export const ZConnectCalendarRequestSchema = z.object({
  apiKey: z
    .string()
    .trim()
    .min(1, "is required")
    .max(512, "is longer than any Chili Piper token (512 characters at most)")
    .regex(/^\S+$/, "must not contain spaces")
    .describe("A Chili Piper API token (Admin Center → API tokens); stored encrypted, never returned."),
});

export const ZConnectCalendarResponseSchema = ZCalendarIntegrationSchema;
