import { listMeetings } from "@/server/services/meetings/list-meetings";
import { requireRole } from "@/server/trpc/init";
import { ZListMeetingsRequestSchema, ZListMeetingsResponseSchema } from "./list-meetings.schema";

/** Console: the organization's meetings from our records. Every role reads meetings; changes need support. */
export const listMeetingsProcedure = requireRole("member", { sessionOnly: true })
  .input(ZListMeetingsRequestSchema)
  .output(ZListMeetingsResponseSchema)
  .query(({ ctx, input }) =>
    listMeetings(ctx.db, {
      organizationId: ctx.auth.organizationId,
      agentId: input.agentId,
      status: input.status,
      when: input.when,
      from: input.from ? new Date(input.from) : undefined,
      to: input.to ? new Date(input.to) : undefined,
      host: input.host,
      limit: input.limit,
      offset: input.offset,
      now: ctx.now(),
    }),
  );
