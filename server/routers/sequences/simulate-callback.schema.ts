import { z } from "zod";
import { ZSequenceIdInputSchema } from "@/server/schemas/sequence";

export const ZSimulateCallbackRequestSchema = z.object({ sequenceId: ZSequenceIdInputSchema });

export const ZSimulateCallbackResponseSchema = z.discriminatedUnion("outcome", [
  z.object({
    outcome: z.literal("agent"),
    callId: z.string().describe("The inbound call, on this sequence."),
    from: z.string().describe("The contact's number."),
    to: z.string().describe("Our number they called."),
  }),
  z.object({
    outcome: z.literal("rejected"),
    reason: z.literal("unknown-number").describe("No organization owns the number (docs/numbers.md): the call is refused."),
    from: z.string(),
    to: z.string(),
  }),
  z.object({
    outcome: z.literal("fallback"),
    reason: z.string().describe("unknown-caller or agent-not-on-duty."),
    fallbackMode: z.enum(["message", "forward"]),
    message: z.string().describe("What the caller would hear."),
    forwardTo: z.string().nullable(),
    from: z.string(),
    to: z.string(),
  }),
]);
