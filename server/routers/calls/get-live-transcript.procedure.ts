import { getLiveTranscript } from "@/server/services/calls/live-calls";
import { requireRole } from "@/server/trpc/init";
import { ZGetLiveTranscriptRequestSchema, ZGetLiveTranscriptResponseSchema } from "./live-calls.schema";

/** Console: a live call's transcript lines after a cursor (short polling). Every role reads transcripts. */
export const getLiveTranscriptProcedure = requireRole("member", { sessionOnly: true })
  .input(ZGetLiveTranscriptRequestSchema)
  .output(ZGetLiveTranscriptResponseSchema)
  .query(({ ctx, input }) => getLiveTranscript(ctx.db, { organizationId: ctx.auth.organizationId, callId: input.callId, after: input.after }));
