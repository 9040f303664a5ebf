import { z } from "zod";
import { ZAgentIdSchema } from "@/server/schemas/agent";

export const ZGetPoolRestRequestSchema = z.object({ agentId: ZAgentIdSchema });
export const ZGetPoolRestResponseSchema = z.object({
  allResting: z.boolean().describe("Every number of the agent's pool rests now: its calls wait (docs/numbers.md \"Number health\")."),
  resting: z.array(z.object({ numberId: z.string(), phoneNumber: z.string(), restingUntil: z.string(), reason: z.string().nullable() })),
  nextBackAt: z.string().nullable().describe("When the first resting number is back, under watch."),
  message: z.string().nullable().describe("What the agent's page says when the whole pool rests."),
});
