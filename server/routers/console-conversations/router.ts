import { router } from "@/server/trpc/init";
import { countSequencesByReferenceProcedure } from "./count-sequences-by-reference.procedure";
import { getMeetingStateProcedure } from "./get-meeting-state.procedure";
import { getSequenceViewProcedure } from "./get-sequence-view.procedure";
import { listSequenceSummariesProcedure } from "./list-sequence-summaries.procedure";

/**
 * Console reads for conversations, sequences and meetings that the REST procedures do not cover (dashboard only: no
 * OpenAPI routes). Changes go through the shared procedures: meetings.addAttendees / meetings.cancel, sequences.cancel.
 */
export const consoleConversationsRouter = router({
  sequenceSummaries: listSequenceSummariesProcedure,
  sequenceView: getSequenceViewProcedure,
  meetingState: getMeetingStateProcedure,
  countByReference: countSequencesByReferenceProcedure,
});
