import { disconnectCalendar } from "@/server/services/integrations/calendar-integration";
import { requireRole } from "@/server/trpc/init";
import { ZDisconnectCalendarRequestSchema, ZDisconnectCalendarResponseSchema } from "./disconnect-calendar.schema";

/** Admins remove the key; agents that book meetings then fail their bookings as "not connected". */
export const disconnectCalendarProcedure = requireRole("admin", { sessionOnly: true })
  .input(ZDisconnectCalendarRequestSchema)
  .output(ZDisconnectCalendarResponseSchema)
  .mutation(({ ctx }) => disconnectCalendar(ctx.db, { organizationId: ctx.auth.organizationId }));
