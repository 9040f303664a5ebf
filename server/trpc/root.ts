import { agentsRouter } from "../routers/agents/router";
import { creditsRouter } from "../routers/credits/router";
import { createCallerFactory, router } from "./init";

export const appRouter = router({
  agents: agentsRouter,
  credits: creditsRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
