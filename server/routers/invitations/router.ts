import { router } from "@/server/trpc/init";
import { acceptInvitationWithNewAccountProcedure } from "./accept-invitation-with-new-account.procedure";
import { acceptInvitationProcedure } from "./accept-invitation.procedure";
import { createInvitationProcedure } from "./create-invitation.procedure";
import { listInvitationsProcedure } from "./list-invitations.procedure";
import { resendInvitationProcedure } from "./resend-invitation.procedure";
import { revokeInvitationProcedure } from "./revoke-invitation.procedure";

/**
 * Dashboard only (no REST meta). Admins invite, list, resend and revoke; the invitee accepts through the link
 * (`/invite/<token>`), signed in as the invited address or creating that account.
 */
export const invitationsRouter = router({
  create: createInvitationProcedure,
  list: listInvitationsProcedure,
  resend: resendInvitationProcedure,
  revoke: revokeInvitationProcedure,
  accept: acceptInvitationProcedure,
  acceptWithNewAccount: acceptInvitationWithNewAccountProcedure,
});
