import { listEvents } from "@/server/services/events/list-events";
import { orgProcedure } from "@/server/trpc/init";
import { listEventsMeta, ZListEventsRequestSchema, ZListEventsResponseSchema } from "./list-events.schema";

export const listEventsProcedure = orgProcedure
  .meta(listEventsMeta)
  .input(ZListEventsRequestSchema)
  .output(ZListEventsResponseSchema)
  .query(({ ctx, input }) =>
    listEvents(ctx.db, { organizationId: ctx.auth.organizationId, after: input.after, limit: input.limit ?? 100, agentId: input.agentId }),
  );
