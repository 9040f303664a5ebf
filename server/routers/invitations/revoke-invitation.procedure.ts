import { revokeInvitation } from "@/server/services/members/manage-invitations";
import { requireRole } from "@/server/trpc/init";
import { ZInvitationRefRequestSchema, ZRevokeInvitationResponseSchema } from "./invitations.schema";

export const revokeInvitationProcedure = requireRole("admin", { sessionOnly: true })
  .input(ZInvitationRefRequestSchema)
  .output(ZRevokeInvitationResponseSchema)
  .mutation(({ ctx, input }) =>
    revokeInvitation(ctx.db, { organizationId: ctx.auth.organizationId, invitationId: input.invitationId, now: ctx.now() }),
  );
