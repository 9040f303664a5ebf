import { getMeetingState } from "@/server/services/meetings/get-meeting-state";
import { requireRole } from "@/server/trpc/init";
import { ZGetMeetingStateRequestSchema, ZGetMeetingStateResponseSchema } from "./get-meeting-state.schema";

/** Console: the provider's live meeting next to the stored (reconciled) status. Every role reads meetings. */
export const getMeetingStateProcedure = requireRole("member", { sessionOnly: true })
  .input(ZGetMeetingStateRequestSchema)
  .output(ZGetMeetingStateResponseSchema)
  .query(({ ctx, input }) => getMeetingState(ctx.db, { organizationId: ctx.auth.organizationId, entityId: input.entityId, now: ctx.now() }));
