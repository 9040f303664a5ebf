import { agentsRouter } from "../routers/agents/router";
import { creditsRouter } from "../routers/credits/router";
import { agentAdminRouter } from "../routers/agent-admin/router";
import { apiKeysRouter } from "../routers/api-keys/router";
import { membersRouter } from "../routers/members/router";
import { organizationsRouter } from "../routers/organizations/router";
import { conversationsRouter } from "../routers/conversations/router";
import { recordingsRouter } from "../routers/recordings/router";
import { createCallerFactory, router } from "./init";

export const appRouter = router({
  conversations: conversationsRouter,
  recordings: recordingsRouter,
  agents: agentsRouter,
  credits: creditsRouter,
  agentAdmin: agentAdminRouter,
  apiKeys: apiKeysRouter,
  members: membersRouter,
  organizations: organizationsRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
