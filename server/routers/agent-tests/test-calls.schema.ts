import { z } from "zod";
import { ZAgentIdSchema } from "@/server/schemas/agent";
import { ZTestContactSchema } from "@/server/schemas/agent-tests";
import { MAX_ID_LENGTH, MAX_VARIABLE_NAME_LENGTH, MAX_VARIABLE_VALUE_LENGTH, MAX_VARIABLES_PER_CONTACT } from "@/server/schemas/limits";
import { boundedText as text } from "@/server/schemas/text";

/* Browser test calls: console only (no REST), a signed-in admin. */

export const ZStartTestCallRequestSchema = z.object({
  agentId: ZAgentIdSchema,
  contact: ZTestContactSchema.optional(),
  inputVariables: z
    .record(text(MAX_VARIABLE_NAME_LENGTH), text(MAX_VARIABLE_VALUE_LENGTH))
    .refine((value) => Object.keys(value).length <= MAX_VARIABLES_PER_CONTACT, `at most ${MAX_VARIABLES_PER_CONTACT} variables`)
    .default({}),
});
export const ZStartTestCallResponseSchema = z.object({
  testCallId: z.string(),
  ticket: z.string().describe("Single use, valid for a minute: the WebSocket's `ticket` query parameter."),
  path: z.string(),
  expiresAt: z.string(),
  promptVersionId: z.string(),
});

export const ZTestCallSchema = z.object({
  testCallId: z.string(),
  agentId: z.string(),
  promptVersionId: z.string(),
  status: z.enum(["pending", "live", "analyzing", "completed", "failed", "expired"]),
  contact: z.object({ name: z.string(), email: z.string().nullable(), timezone: z.string() }),
  inputVariables: z.record(z.string(), z.string()),
  lines: z.array(z.object({ itemId: z.string(), speaker: z.enum(["agent", "customer"]), text: z.string(), offsetMs: z.number() })),
  toolCalls: z.array(z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()), result: z.object({ ok: z.boolean(), message: z.string(), data: z.record(z.string(), z.unknown()).optional() }), offsetMs: z.number() })),
  latenciesMs: z.array(z.number()),
  durationSeconds: z.number().int().nullable(),
  recordingUrl: z.string().nullable(),
  callResult: z.record(z.string(), z.unknown()).nullable(),
  createdAt: z.string(),
  endedAt: z.string().nullable(),
  error: z.string().nullable(),
});

export const ZListTestCallsRequestSchema = z.object({ agentId: ZAgentIdSchema });
export const ZListTestCallsResponseSchema = z.object({ testCalls: z.array(ZTestCallSchema) });
export const ZGetTestCallRequestSchema = z.object({ agentId: ZAgentIdSchema, testCallId: text(MAX_ID_LENGTH) });
