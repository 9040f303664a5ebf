import { hangUpCall } from "@/server/services/calls/live-calls";
import { getVoiceEngine } from "@/server/voice";
import { requireRole } from "@/server/trpc/init";
import { ZHangUpCallRequestSchema, ZHangUpCallResponseSchema } from "./live-calls.schema";

/** Console: admins end a call in progress. */
export const hangUpCallProcedure = requireRole("admin", { sessionOnly: true })
  .input(ZHangUpCallRequestSchema)
  .output(ZHangUpCallResponseSchema)
  .mutation(({ ctx, input }) => hangUpCall(ctx.db, { organizationId: ctx.auth.organizationId, callId: input.callId, engine: getVoiceEngine() }));
