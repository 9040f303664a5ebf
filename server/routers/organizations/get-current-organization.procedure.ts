import { findOrganizationById } from "@/server/services/members/list-my-organizations";
import { requireRole } from "@/server/trpc/init";
import { ZGetCurrentOrganizationRequestSchema, ZGetCurrentOrganizationResponseSchema } from "./organizations.schema";

/** The organization of the request (x-org-id header) and the caller's verified role in it. */
export const getCurrentOrganizationProcedure = requireRole("member", { sessionOnly: true })
  .input(ZGetCurrentOrganizationRequestSchema)
  .output(ZGetCurrentOrganizationResponseSchema)
  .query(async ({ ctx }) => {
    const { actor, organizationId } = ctx.auth;
    if (actor.type !== "user") throw new Error("unreachable: sessionOnly");
    const organization = await findOrganizationById(ctx.db, { organizationId });
    return { orgId: organization.orgId, name: organization.name, role: actor.role, userId: actor.userId };
  });
