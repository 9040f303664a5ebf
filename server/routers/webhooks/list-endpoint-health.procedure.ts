import { listEndpointHealth } from "@/server/services/webhooks/endpoint-health";
import { requireRole } from "@/server/trpc/init";
import { ZListEndpointHealthRequestSchema, ZListEndpointHealthResponseSchema } from "./list-endpoint-health.schema";

/** Console: how each endpoint's deliveries are going (every member reads webhooks). */
export const listEndpointHealthProcedure = requireRole("member", { sessionOnly: true })
  .input(ZListEndpointHealthRequestSchema)
  .output(ZListEndpointHealthResponseSchema)
  .query(async ({ ctx }) => ({ endpoints: await listEndpointHealth(ctx.db, { organizationId: ctx.auth.organizationId }) }));
