import { listRecordings } from "@/server/services/recordings/list-recordings";
import { orgProcedure } from "@/server/trpc/init";
import { listRecordingsMeta, ZListRecordingsRequestSchema, ZListRecordingsResponseSchema } from "./list-recordings.schema";

export const listRecordingsProcedure = orgProcedure
  .meta(listRecordingsMeta)
  .input(ZListRecordingsRequestSchema)
  .output(ZListRecordingsResponseSchema)
  .mutation(({ ctx, input }) =>
    listRecordings(ctx.db, {
      organizationId: ctx.auth.organizationId,
      sequenceIds: input.sequenceIds,
      includeTranscripts: input.includeTranscripts ?? false,
      now: ctx.now(),
    }),
  );
