import { removeMember } from "@/server/services/members/remove-member";
import { requireRole } from "@/server/trpc/init";
import { ZRemoveMemberRequestSchema, ZRemoveMemberResponseSchema } from "./members.schema";

export const removeMemberProcedure = requireRole("admin", { sessionOnly: true })
  .input(ZRemoveMemberRequestSchema)
  .output(ZRemoveMemberResponseSchema)
  .mutation(({ ctx, input }) => removeMember(ctx.db, { organizationId: ctx.auth.organizationId, userId: input.userId }));
