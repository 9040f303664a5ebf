import { router } from "@/server/trpc/init";
import { getRecordingProcedure } from "./get-recording.procedure";
import { listRecordingsProcedure } from "./list-recordings.procedure";

export const recordingsRouter = router({
  list: listRecordingsProcedure,
  get: getRecordingProcedure,
});
