import { router } from "@/server/trpc/init";
import { addAttendeesProcedure } from "./add-attendees.procedure";
import { cancelMeetingProcedure } from "./cancel-meeting.procedure";
import { listAttendeesProcedure } from "./list-attendees.procedure";

export const meetingsRouter = router({
  listAttendees: listAttendeesProcedure,
  addAttendees: addAttendeesProcedure,
  cancel: cancelMeetingProcedure,
});
