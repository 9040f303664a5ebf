import { credentialsEnabled } from "@/server/auth/next-auth";
import { AppError } from "@/server/errors";
import { acceptInvitationWithNewAccount } from "@/server/services/members/accept-invitation";
import { publicProcedure } from "@/server/trpc/init";
import { ZAcceptInvitationWithNewAccountRequestSchema, ZAcceptInvitationWithNewAccountResponseSchema } from "./invitations.schema";

/** No session: the link's token is the credential. The invitee chooses their own password; they sign in with it next. */
export const acceptInvitationWithNewAccountProcedure = publicProcedure
  .input(ZAcceptInvitationWithNewAccountRequestSchema)
  .output(ZAcceptInvitationWithNewAccountResponseSchema)
  .mutation(({ ctx, input }) => {
    if (!credentialsEnabled()) throw new AppError("FORBIDDEN", "Password sign-in is off here: sign in with single sign-on to accept.");
    return acceptInvitationWithNewAccount(ctx.db, { ...input, now: ctx.now() });
  });
