import { router } from "@/server/trpc/init";
import { acceptInvitationWithNewAccountProcedure } from "./accept-invitation-with-new-account.procedure";
import { acceptInvitationProcedure } from "./accept-invitation.procedure";
import { createInvitationProcedure } from "./create-invitation.procedure";
import { listInvitationsProcedure } from "./list-invitations.procedure";
import { lookupInvitationProcedure } from "./lookup-invitation.procedure";
import { resendInvitationProcedure } from "./resend-invitation.procedure";
import { revokeInvitationProcedure } from "./revoke-invitation.procedure";

/**
 * Dashboard only (no REST meta). Admins invite, list, resend and revoke; the invitee opens the link
 * (`/invite/<token>`, `lookup`) and accepts, signed in as the invited address or creating that account.
 */
export const invitationsRouter = router({
  create: createInvitationProcedure,
  list: listInvitationsProcedure,
  resend: resendInvitationProcedure,
  revoke: revokeInvitationProcedure,
  lookup: lookupInvitationProcedure,
  accept: acceptInvitationProcedure,
  acceptWithNewAccount: acceptInvitationWithNewAccountProcedure,
});
