import { router } from "@/server/trpc/init";
import { callEventSampleProcedure } from "./call-event-sample.procedure";
import { checkAccessProcedure } from "./check-access.procedure";
import { getCallingLimitsProcedure } from "./get-calling-limits.procedure";
import { listAgentsProcedure } from "./list-agents.procedure";
import { listExtractedVariablesProcedure } from "./list-extracted-variables.procedure";
import { listInputVariablesProcedure } from "./list-input-variables.procedure";
import { listOutcomesProcedure } from "./list-outcomes.procedure";
import { updateCallingLimitsProcedure } from "./update-calling-limits.procedure";

export const agentsRouter = router({
  list: listAgentsProcedure,
  listInputVariables: listInputVariablesProcedure,
  listExtractedVariables: listExtractedVariablesProcedure,
  listOutcomes: listOutcomesProcedure,
  checkAccess: checkAccessProcedure,
  callEventSample: callEventSampleProcedure,
  callingLimits: getCallingLimitsProcedure,
  updateCallingLimits: updateCallingLimitsProcedure,
});
