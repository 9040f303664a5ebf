import { inviteMember } from "@/server/services/members/manage-invitations";
import { requireRole } from "@/server/trpc/init";
import { userIdOf } from "./user-id";
import { ZCreateInvitationRequestSchema, ZCreateInvitationResponseSchema } from "./invitations.schema";

export const createInvitationProcedure = requireRole("admin", { sessionOnly: true })
  .input(ZCreateInvitationRequestSchema)
  .output(ZCreateInvitationResponseSchema)
  .mutation(({ ctx, input }) =>
    inviteMember(ctx.db, { organizationId: ctx.auth.organizationId, invitedByUserId: userIdOf(ctx.auth), ...input, now: ctx.now() }),
  );
