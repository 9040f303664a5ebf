import { router } from "@/server/trpc/init";
import { addAttendeesProcedure } from "./add-attendees.procedure";
import { cancelMeetingProcedure } from "./cancel-meeting.procedure";
import { getMeetingStateProcedure } from "./get-meeting-state.procedure";
import { listAttendeesProcedure } from "./list-attendees.procedure";

/** The first three are also `/api/v1` operations; state is the console's live view of a meeting (dashboard only). */
export const meetingsRouter = router({
  listAttendees: listAttendeesProcedure,
  addAttendees: addAttendeesProcedure,
  cancel: cancelMeetingProcedure,
  state: getMeetingStateProcedure,
});
