import { z } from "zod";
import { suppressionSources } from "@/db/schema";

export const ZSuppressionSourceSchema = z
  .enum(suppressionSources)
  .describe("How the number got on the list: `call` (the contact opted out during a call), `api` (POST /suppressions), `console` (added in the dashboard), `import` (a dashboard CSV import).");

export const ZSuppressionSchema = z
  .object({
    phoneNumber: z.string().describe("E.164."),
    reason: z.string().nullable().describe("The reason given when the number was added; null for opt-outs during calls."),
    source: ZSuppressionSourceSchema,
    createdAt: z.string().describe("When the number was added (ISO 8601)."),
  })
  .describe("A suppressed number: never enrolled (OPTED_OUT) and never dialed by this organization.");
