import { buildCallEventSample } from "@/server/services/webhooks/call-event-sample";
import { orgProcedure } from "@/server/trpc/init";
import { callEventSampleMeta, ZCallEventSampleRequestSchema, ZCallEventSampleResponseSchema } from "./call-event-sample.schema";

export const callEventSampleProcedure = orgProcedure
  .meta(callEventSampleMeta)
  .input(ZCallEventSampleRequestSchema)
  .output(ZCallEventSampleResponseSchema)
  .query(({ ctx, input }) =>
    buildCallEventSample(ctx.db, { organizationId: ctx.auth.organizationId, agentId: input.agentId, now: ctx.now() }),
  );
