import { router } from "@/server/trpc/init";
import { connectCalendarProcedure } from "./connect-calendar.procedure";
import { disconnectCalendarProcedure } from "./disconnect-calendar.procedure";
import { getIntegrationsProcedure } from "./get-integrations.procedure";
import { testCalendarProcedure } from "./test-calendar.procedure";

/** The Integrations page (dashboard only: no REST paths, never through an API key). Reads for members, changes for admins. */
export const integrationsRouter = router({
  get: getIntegrationsProcedure,
  connectCalendar: connectCalendarProcedure,
  testCalendar: testCalendarProcedure,
  disconnectCalendar: disconnectCalendarProcedure,
});
