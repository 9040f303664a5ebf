import { z } from "zod";
import { ZAgentIdSchema } from "@/server/schemas/agent";
import { ZCallEventPayloadSchema } from "@/server/schemas/call";
import type { Meta } from "@/server/trpc/init";

export const callEventSampleMeta: Meta = {
  openapi: {
    method: "GET",
    path: "/agent/{agentId}/call_event_sample",
    tags: ["Events"],
    summary: "Sample call-result webhook payload",
    description:
      "A sample of the call-result webhook body for this agent, built from its configuration: its input variables " +
      "(customInputVariables), extraction variables with typed example values, an enabled outcome, and followUpMeetingDetails " +
      "when the agent has a calendar tool. Real deliveries also carry attempt, createdAt, updatedAt and callStatus. " +
      "Note the singular `agent` in the path.",
    protect: true,
    errorResponses: { 401: "Missing or invalid API key", 404: "Unknown agent, or an agent of another organization (AGENT_NOT_FOUND)" },
  },
};

export const ZCallEventSampleRequestSchema = z.object({ agentId: ZAgentIdSchema });

export const ZCallEventSampleResponseSchema = ZCallEventPayloadSchema.omit({
  attempt: true,
  createdAt: true,
  updatedAt: true,
  callStatus: true,
}).describe("The call-result webhook payload (sample).");
