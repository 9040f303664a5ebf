import { findCustomers } from "@/server/services/customers/find-customers";
import { requireRole } from "@/server/trpc/init";
import { ZFindCustomersRequestSchema, ZFindCustomersResponseSchema } from "./find-customers.schema";

/** Console: the header's "find a customer" box. Every role reads conversations. */
export const findCustomersProcedure = requireRole("member", { sessionOnly: true })
  .input(ZFindCustomersRequestSchema)
  .output(ZFindCustomersResponseSchema)
  .query(({ ctx, input }) => findCustomers(ctx.db, { organizationId: ctx.auth.organizationId, query: input.query, limit: input.limit }));
