import { credentialsEnabled } from "@/server/auth/next-auth";
import { addMember } from "@/server/services/members/add-member";
import { requireRole } from "@/server/trpc/init";
import { ZAddMemberRequestSchema, ZAddMemberResponseSchema } from "./members.schema";

export const addMemberProcedure = requireRole("admin", { sessionOnly: true })
  .input(ZAddMemberRequestSchema)
  .output(ZAddMemberResponseSchema)
  .mutation(({ ctx, input }) =>
    addMember(ctx.db, { organizationId: ctx.auth.organizationId, ...input, issueInitialPassword: credentialsEnabled() }),
  );
