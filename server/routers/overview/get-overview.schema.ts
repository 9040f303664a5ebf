import { z } from "zod";
import { answeredByClasses } from "@/db/schema/call-quality";

export const ZGetOverviewRequestSchema = z.object({
  days: z.union([z.literal(7), z.literal(30)]).default(7).describe("The last 7 or 30 UTC days, today included."),
});

const ZCount = z.number().int().nonnegative();
const ZPercentiles = z.object({ p50: z.number(), p95: z.number() });

export const ZGetOverviewResponseSchema = z.object({
  period: z.object({ days: z.number().int(), startDate: z.string(), endDate: z.string() }),
  totals: z.object({
    calls: ZCount,
    connected: ZCount,
    goalCompleted: ZCount,
    meetingsBooked: ZCount,
    spentCredits: ZCount,
    connectRate: z.number().nullable().describe("Connected calls per 100 calls; null without calls."),
    goalCompletionRate: z.number().nullable().describe("Goal Completed per 100 connected calls; null without connected calls."),
  }),
  daily: z.array(
    z.object({ date: z.string(), calls: ZCount, connected: ZCount, goalCompleted: ZCount, meetingsBooked: ZCount, spentCredits: ZCount }),
  ),
  month: z.object({
    month: z.string(),
    allocatedCredits: z.number().int().nullable(),
    spentCredits: z.number().int(),
    remainingCredits: z.number().int().nullable(),
    percentageUsed: z.number().nullable(),
    dailyBurn: z.number().describe("Average credits spent per day over the last 7 UTC days."),
    runsOutOn: z.string().nullable().describe("The UTC day the month's allocation runs out at that pace; null when nothing is spent."),
    runsOutBeforeMonthEnd: z.boolean(),
  }),
  recentCalls: z.array(
    z.object({
      callId: z.string(),
      sequenceId: z.string(),
      contactName: z.string(),
      timezone: z.string(),
      agentId: z.string(),
      agentName: z.string(),
      resultType: z.string(),
      durationSeconds: z.number().int(),
      endedAt: z.string(),
    }),
  ),
  callQuality: z
    .object({
      latencyThresholdMs: z.number().int().describe("CALL_QUALITY_LATENCY_THRESHOLD_MS: a call whose p95 response latency is above it is slow."),
      agents: z.array(
        z.object({
          agentId: z.string(),
          name: z.string(),
          calls: ZCount.describe("Calls of the period with measurements."),
          turns: ZCount,
          responseMs: ZPercentiles.nullable().describe("Over all measured turns of the agent's calls."),
          greetingMs: ZPercentiles.nullable(),
        }),
      ),
      answeredBy: z.array(z.object({ answeredBy: z.enum(answeredByClasses), calls: ZCount, share: z.number().nullable().describe("Per 100 measured calls.") })),
      slowCalls: z.object({
        total: ZCount,
        calls: z.array(z.object({ callId: z.string(), sequenceId: z.string(), agentName: z.string(), contactName: z.string(), endedAt: z.string(), responseP95Ms: z.number() })),
      }),
    })
    .describe("Call quality over the period (docs/call-quality.md)."),
  alerts: z.object({
    failingEndpoints: z.array(z.object({ endpointId: z.string(), url: z.string(), failingSince: z.string().nullable(), consecutiveFailures: z.number().int() })),
    pausedAgents: z.array(
      z.object({
        agentId: z.string(),
        name: z.string(),
        pauseReason: z.string().nullable(),
        pauseSource: z.string().nullable(),
        pausedAt: z.string().nullable(),
        pendingCalls: ZCount,
      }),
    ),
    lowCredits: z.boolean(),
  }),
});
