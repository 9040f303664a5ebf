import { lookupInvitation } from "@/server/services/members/accept-invitation";
import { publicProcedure } from "@/server/trpc/init";
import { ZLookupInvitationRequestSchema, ZLookupInvitationResponseSchema } from "./invitations.schema";

/** The invitation page (`/invite/<token>`): no session needed, the token is the secret; looking changes nothing. */
export const lookupInvitationProcedure = publicProcedure
  .input(ZLookupInvitationRequestSchema)
  .output(ZLookupInvitationResponseSchema)
  .query(({ ctx, input }) => lookupInvitation(ctx.db, { token: input.token, now: ctx.now() }));
