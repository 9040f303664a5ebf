import { resendInvitation } from "@/server/services/members/manage-invitations";
import { requireRole } from "@/server/trpc/init";
import { ZInvitationRefRequestSchema, ZResendInvitationResponseSchema } from "./invitations.schema";

export const resendInvitationProcedure = requireRole("admin", { sessionOnly: true })
  .input(ZInvitationRefRequestSchema)
  .output(ZResendInvitationResponseSchema)
  .mutation(({ ctx, input }) =>
    resendInvitation(ctx.db, { organizationId: ctx.auth.organizationId, invitationId: input.invitationId, now: ctx.now() }),
  );
