import { z } from "zod";
import { MAX_NAME_LENGTH } from "@/server/schemas/limits";
import { ZLifecycleStatusSchema } from "@/server/schemas/sequence";

/** Results of one search: enough for a support person to pick the right contact; narrow the query for more. */
export const MAX_CUSTOMER_RESULTS = 50;

export const ZFindCustomersRequestSchema = z.object({
  query: z
    .string()
    .trim()
    .min(2)
    .max(MAX_NAME_LENGTH)
    .describe("A contact name, phone number in any format, email, custom-variable value, sequence ID or call ID."),
  limit: z.number().int().min(1).max(MAX_CUSTOMER_RESULTS).default(20),
});

export const ZCustomerMatchSchema = z.object({
  sequenceId: z.string(),
  callId: z.string().nullable().describe("The call whose ID was searched for, if any."),
  matchedOn: z.array(z.enum(["id", "phone", "name", "email", "variable"])),
  matchedVariable: z.object({ name: z.string(), value: z.string() }).nullable(),
  contact: z.object({ name: z.string(), phoneNumber: z.string(), email: z.string().nullable(), timezone: z.string() }),
  agent: z.object({ agentId: z.string(), name: z.string() }),
  lifecycleStatus: ZLifecycleStatusSchema,
  lastCall: z.object({ callId: z.string(), resultType: z.string(), at: z.string() }).nullable(),
  nextCall: z.object({ callId: z.string(), scheduledAt: z.string() }).nullable(),
  meeting: z.object({ callId: z.string(), startTime: z.string(), status: z.enum(["booked", "cancelled"]) }).nullable(),
});

export const ZFindCustomersResponseSchema = z.object({
  results: z.array(ZCustomerMatchSchema).describe("Most recently updated sequences first."),
});
