import { z } from "zod";
import { boundedText } from "@/server/schemas/text";
import type { Meta } from "@/server/trpc/init";

export const getCreditUsageMeta: Meta = {
  openapi: {
    method: "GET",
    path: "/credits/usage",
    tags: ["Credits"],
    summary: "Credit usage",
    description:
      "Credit use for a billing month (default: the current UTC month) or a custom inclusive UTC date range (at most 366 days), with a per-agent breakdown. In range mode allocated, remaining and percentage are null and the organization figure is the sum of agents[]. Also a key check.",
    protect: true,
    errorResponses: { 400: "Invalid or conflicting parameters (INVALID_REQUEST)", 401: "Missing or invalid API key" },
  },
};

export const ZGetCreditUsageRequestSchema = z.object({
  month: boundedText(7).optional().describe("Billing month, YYYY-MM, from 1900-01; not in the future. Excludes startDate/endDate."),
  startDate: boundedText(10).optional().describe("YYYY-MM-DD, inclusive, UTC, from 1900-01-01. Requires endDate."),
  endDate: boundedText(10).optional().describe("YYYY-MM-DD, inclusive, UTC. Requires startDate. Not in the future."),
});

export const ZGetCreditUsageResponseSchema = z.object({
  period: z.object({
    type: z.enum(["month", "range"]),
    startDate: z.string(),
    endDate: z.string(),
    month: z.string().nullable().describe("YYYY-MM in month mode; null in range mode."),
  }),
  organization: z.object({
    allocatedCredits: z.number().int().nullable(),
    spentCredits: z.number().int(),
    remainingCredits: z.number().int().nullable(),
    percentageUsed: z.number().nullable(),
  }),
  agents: z.array(
    z.object({
      agentId: z.string(),
      agentName: z.string(),
      spentCredits: z.number().int(),
      transactionCount: z.number().int(),
    }),
  ),
});
