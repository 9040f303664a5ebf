import { z } from "zod";

/** An agent's calling limits (issue 17 §5): stored and editable now; the dial path applies them in phase B. */
export const ZAgentCallingLimitsSchema = z
  .object({
    maxConcurrentCalls: z.number().int().nullable().describe("Calls of this agent in the air at once; null = no agent limit (the organization's still applies)."),
    dailyCreditCap: z.number().int().nullable().describe("Credits the agent may spend per day (its first timezone's day); null = no cap."),
    autoPause: z
      .object({
        enabled: z.boolean(),
        windowCalls: z.number().int().describe("How many of the agent's last calls are looked at (default 50)."),
        failurePercent: z.number().int().describe("The agent is paused when more than this share of them ended Failed or Invalid Phone Number (default 30)."),
      })
      .describe("Auto-pause on a high failure rate."),
  })
  .describe("Calling limits of the agent.");
export type TAgentCallingLimits = z.infer<typeof ZAgentCallingLimitsSchema>;
