import { listLiveCalls } from "@/server/services/calls/live-calls";
import { requireRole } from "@/server/trpc/init";
import { ZListLiveCallsRequestSchema, ZListLiveCallsResponseSchema } from "./live-calls.schema";

/** Console: the calls in progress. Every role reads calls. */
export const listLiveCallsProcedure = requireRole("member", { sessionOnly: true })
  .input(ZListLiveCallsRequestSchema)
  .output(ZListLiveCallsResponseSchema)
  .query(({ ctx }) => listLiveCalls(ctx.db, { organizationId: ctx.auth.organizationId, now: ctx.now() }));
