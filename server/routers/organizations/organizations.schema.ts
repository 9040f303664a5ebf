import { z } from "zod";
import { ZMemberRoleSchema } from "../members/members.schema";

export const ZListMyOrganizationsRequestSchema = z.object({}).optional();
export const ZListMyOrganizationsResponseSchema = z.object({
  organizations: z.array(z.object({ orgId: z.string(), name: z.string(), role: ZMemberRoleSchema })),
});

export const ZGetCurrentOrganizationRequestSchema = z.object({}).optional();
export const ZGetCurrentOrganizationResponseSchema = z.object({
  orgId: z.string(),
  name: z.string(),
  role: ZMemberRoleSchema,
  userId: z.string(),
});
