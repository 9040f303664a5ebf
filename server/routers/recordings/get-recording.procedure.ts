import { getRecording } from "@/server/services/recordings/get-recording";
import { orgProcedure } from "@/server/trpc/init";
import { getRecordingMeta, ZGetRecordingRequestSchema, ZGetRecordingResponseSchema } from "./get-recording.schema";

export const getRecordingProcedure = orgProcedure
  .meta(getRecordingMeta)
  .input(ZGetRecordingRequestSchema)
  .output(ZGetRecordingResponseSchema)
  .query(({ ctx, input }) =>
    getRecording(ctx.db, {
      organizationId: ctx.auth.organizationId,
      callId: input.callId,
      includeTranscript: input.includeTranscript ?? false,
      now: ctx.now(),
    }),
  );
