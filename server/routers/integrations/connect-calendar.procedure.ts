import { connectCalendar } from "@/server/services/integrations/calendar-integration";
import { requireRole } from "@/server/trpc/init";
import { ZConnectCalendarRequestSchema, ZConnectCalendarResponseSchema } from "./connect-calendar.schema";

/** Admins connect (or replace) the Chili Piper key; the provider checks it first; the answer never holds the key. */
export const connectCalendarProcedure = requireRole("admin", { sessionOnly: true })
  .input(ZConnectCalendarRequestSchema)
  .output(ZConnectCalendarResponseSchema)
  .mutation(({ ctx, input }) =>
    connectCalendar(ctx.db, {
      organizationId: ctx.auth.organizationId,
      apiKey: input.apiKey,
      userId: ctx.auth.actor.type === "user" ? ctx.auth.actor.userId : null,
      now: ctx.now(),
    }),
  );
