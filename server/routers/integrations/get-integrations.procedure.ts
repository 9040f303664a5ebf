import { getIntegrations } from "@/server/services/integrations/get-integrations";
import { requireRole } from "@/server/trpc/init";
import { ZGetIntegrationsRequestSchema, ZGetIntegrationsResponseSchema } from "./get-integrations.schema";

/** Console: the calendar provider (never its key), the voice engine and the agents' numbers; every member reads. */
export const getIntegrationsProcedure = requireRole("member", { sessionOnly: true })
  .input(ZGetIntegrationsRequestSchema)
  .output(ZGetIntegrationsResponseSchema)
  .query(({ ctx }) => getIntegrations(ctx.db, { organizationId: ctx.auth.organizationId }));
