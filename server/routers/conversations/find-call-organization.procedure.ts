import { findCallOrganizationForMember } from "@/server/services/calls/find-call-organization";
import { sessionProcedure } from "@/server/trpc/init";
import { ZFindCallOrganizationRequestSchema, ZFindCallOrganizationResponseSchema } from "./find-call-organization.schema";

/** The call link (`callUrl`, no organization in it): which of the signed-in person's organizations holds the call. */
export const findCallOrganizationProcedure = sessionProcedure
  .input(ZFindCallOrganizationRequestSchema)
  .output(ZFindCallOrganizationResponseSchema)
  .query(({ ctx, input }) => findCallOrganizationForMember(ctx.db, { callId: input.callId, userId: ctx.session.userId }));
