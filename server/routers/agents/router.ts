import { router } from "@/server/trpc/init";
import { callEventSampleProcedure } from "./call-event-sample.procedure";
import { checkAccessProcedure } from "./check-access.procedure";
import { createAgentProcedure } from "./create-agent.procedure";
import { getAgentConfigProcedure } from "./get-agent-config.procedure";
import { getCallingLimitsProcedure } from "./get-calling-limits.procedure";
import { getPoolRestProcedure } from "./get-pool-rest.procedure";
import { listAgentsProcedure } from "./list-agents.procedure";
import { listConsoleAgentsProcedure } from "./list-console-agents.procedure";
import { listExtractedVariablesProcedure } from "./list-extracted-variables.procedure";
import { listInputVariablesProcedure } from "./list-input-variables.procedure";
import { listOutcomesProcedure } from "./list-outcomes.procedure";
import { updateAgentProcedure } from "./update-agent.procedure";
import { updateCallingLimitsProcedure } from "./update-calling-limits.procedure";

/**
 * Agents. Procedures with an OpenAPI `.meta()` are also `/api/v1` operations (checkAccess backs the HEAD checks);
 * listForConsole, getConfig, create, update and poolRest are the console's agent management (dashboard sessions only): every
 * role reads, admins write.
 */
export const agentsRouter = router({
  list: listAgentsProcedure,
  listInputVariables: listInputVariablesProcedure,
  listExtractedVariables: listExtractedVariablesProcedure,
  listOutcomes: listOutcomesProcedure,
  checkAccess: checkAccessProcedure,
  callEventSample: callEventSampleProcedure,
  callingLimits: getCallingLimitsProcedure,
  updateCallingLimits: updateCallingLimitsProcedure,
  poolRest: getPoolRestProcedure,
  listForConsole: listConsoleAgentsProcedure,
  getConfig: getAgentConfigProcedure,
  create: createAgentProcedure,
  update: updateAgentProcedure,
});
