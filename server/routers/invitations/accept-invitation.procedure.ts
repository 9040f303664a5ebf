import { acceptInvitation } from "@/server/services/members/accept-invitation";
import { sessionProcedure } from "@/server/trpc/init";
import { ZAcceptInvitationRequestSchema, ZAcceptInvitationResponseSchema } from "./invitations.schema";

/** The signed-in invitee joins (their account's email must be the invited address). */
export const acceptInvitationProcedure = sessionProcedure
  .input(ZAcceptInvitationRequestSchema)
  .output(ZAcceptInvitationResponseSchema)
  .mutation(({ ctx, input }) => acceptInvitation(ctx.db, { token: input.token, userId: ctx.session.userId, now: ctx.now() }));
