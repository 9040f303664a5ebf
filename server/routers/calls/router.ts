import { router } from "@/server/trpc/init";
import { getLiveTranscriptProcedure } from "./get-live-transcript.procedure";
import { hangUpCallProcedure } from "./hang-up-call.procedure";
import { listLiveCallsProcedure } from "./list-live-calls.procedure";

/** Calls in progress, for the console (no OpenAPI routes, API keys refused): follow them live, hang up (admins). */
export const callsRouter = router({
  listLive: listLiveCallsProcedure,
  liveTranscript: getLiveTranscriptProcedure,
  hangUp: hangUpCallProcedure,
});
