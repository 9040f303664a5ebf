import { listMyOrganizations } from "@/server/services/members/list-my-organizations";
import { sessionProcedure } from "@/server/trpc/init";
import { ZListMyOrganizationsRequestSchema, ZListMyOrganizationsResponseSchema } from "./organizations.schema";

export const listMyOrganizationsProcedure = sessionProcedure
  .input(ZListMyOrganizationsRequestSchema)
  .output(ZListMyOrganizationsResponseSchema)
  .query(({ ctx }) => listMyOrganizations(ctx.db, { userId: ctx.session.userId }));
