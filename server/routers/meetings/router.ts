import { router } from "@/server/trpc/init";
import { addAttendeesProcedure } from "./add-attendees.procedure";
import { cancelMeetingProcedure } from "./cancel-meeting.procedure";
import { listAttendeesProcedure } from "./list-attendees.procedure";
import { listMeetingsProcedure } from "./list-meetings.procedure";

export const meetingsRouter = router({
  listAttendees: listAttendeesProcedure,
  addAttendees: addAttendeesProcedure,
  cancel: cancelMeetingProcedure,
  list: listMeetingsProcedure,
});
