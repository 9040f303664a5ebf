import { simulateCallback } from "@/server/services/call-engine/simulate-callback";
import { getVoiceEngine } from "@/server/voice";
import { requireRole } from "@/server/trpc/init";
import { ZSimulateCallbackRequestSchema, ZSimulateCallbackResponseSchema } from "./simulate-callback.schema";

/** Console, admins, embedded voice simulator: the sequence's contact calls back the number that last called them. */
export const simulateCallbackProcedure = requireRole("admin", { sessionOnly: true })
  .input(ZSimulateCallbackRequestSchema)
  .output(ZSimulateCallbackResponseSchema)
  .mutation(({ ctx, input }) => simulateCallback(ctx.db, { organizationId: ctx.auth.organizationId, sequenceId: input.sequenceId, voiceEngine: getVoiceEngine(), now: ctx.now() }));
