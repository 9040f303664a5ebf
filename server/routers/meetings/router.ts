import { router } from "@/server/trpc/init";
import { addAttendeesProcedure } from "./add-attendees.procedure";
import { cancelMeetingProcedure } from "./cancel-meeting.procedure";
import { getMeetingStateProcedure } from "./get-meeting-state.procedure";
import { listAttendeesProcedure } from "./list-attendees.procedure";
import { listMeetingsProcedure } from "./list-meetings.procedure";

/**
 * The first three are also `/api/v1` operations; state (the console's live view of a meeting) and list (the
 * organization's meetings from our records) are dashboard only.
 */
export const meetingsRouter = router({
  listAttendees: listAttendeesProcedure,
  addAttendees: addAttendeesProcedure,
  cancel: cancelMeetingProcedure,
  state: getMeetingStateProcedure,
  list: listMeetingsProcedure,
});
