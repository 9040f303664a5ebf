import { testCalendarConnection } from "@/server/services/integrations/calendar-integration";
import { requireRole } from "@/server/trpc/init";
import { ZTestCalendarRequestSchema, ZTestCalendarResponseSchema } from "./test-calendar.schema";

/** Admins: a real call to the provider with the stored key (permissions read again); a refusal is a result, not an error. */
export const testCalendarProcedure = requireRole("admin", { sessionOnly: true })
  .input(ZTestCalendarRequestSchema)
  .output(ZTestCalendarResponseSchema)
  .mutation(({ ctx }) => testCalendarConnection(ctx.db, { organizationId: ctx.auth.organizationId, now: ctx.now() }));
