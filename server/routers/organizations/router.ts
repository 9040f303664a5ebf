import { router } from "@/server/trpc/init";
import { getCurrentOrganizationProcedure } from "./get-current-organization.procedure";
import { listMyOrganizationsProcedure } from "./list-my-organizations.procedure";

export const organizationsRouter = router({
  listMine: listMyOrganizationsProcedure,
  current: getCurrentOrganizationProcedure,
});
