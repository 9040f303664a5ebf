import { z } from "zod";
import { MAX_ID_LENGTH } from "@/server/schemas/limits";

export const ZListLiveCallsRequestSchema = z.object({}).optional();

export const ZLiveCallSchema = z.object({
  callId: z.string(),
  sequenceId: z.string(),
  contact: z.object({ name: z.string(), phoneNumber: z.string(), timezone: z.string() }),
  agent: z.object({ agentId: z.string(), name: z.string() }),
  state: z.enum(["ringing", "answered"]),
  dialedAt: z.string().nullable(),
  answeredAt: z.string().nullable(),
  secondsSoFar: z.number().int(),
  lineCount: z.number().int(),
});

export const ZListLiveCallsResponseSchema = z.object({ calls: z.array(ZLiveCallSchema) });

export const ZGetLiveTranscriptRequestSchema = z.object({
  callId: z.string().min(1).max(MAX_ID_LENGTH),
  after: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe("The cursor of the last line already shown."),
});

export const ZGetLiveTranscriptResponseSchema = z.object({
  callId: z.string(),
  resultType: z.string(),
  live: z.boolean().describe("The call is still in progress."),
  lines: z.array(z.object({ cursor: z.number().int(), speaker: z.enum(["agent", "customer"]), text: z.string(), offsetMs: z.number().int(), createdAt: z.string() })),
  nextCursor: z.number().int().nullable(),
});

export const ZHangUpCallRequestSchema = z.object({ callId: z.string().min(1).max(MAX_ID_LENGTH) });
export const ZHangUpCallResponseSchema = z.object({ callId: z.string(), hungUp: z.literal(true) });
