import { router } from "@/server/trpc/init";
import { findCustomersProcedure } from "./find-customers.procedure";

/** Contacts across agents, for support (dashboard only: no OpenAPI routes, API keys refused). */
export const customersRouter = router({
  find: findCustomersProcedure,
});
