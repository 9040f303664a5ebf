import { router } from "@/server/trpc/init";
import { createAgentProcedure } from "./create-agent.procedure";
import { getAgentConfigProcedure } from "./get-agent-config.procedure";
import { listConsoleAgentsProcedure } from "./list-console-agents.procedure";
import { updateAgentProcedure } from "./update-agent.procedure";

/** Agent management in the console: every role reads, admins write. */
export const agentAdminRouter = router({
  list: listConsoleAgentsProcedure,
  get: getAgentConfigProcedure,
  create: createAgentProcedure,
  update: updateAgentProcedure,
});
