import { router } from "@/server/trpc/init";
import { createTestCaseProcedure } from "./create-test-case.procedure";
import { createTestRunProcedure } from "./create-test-run.procedure";
import { deleteTestCaseProcedure } from "./delete-test-case.procedure";
import { diffPromptVersionsProcedure } from "./diff-prompt-versions.procedure";
import { getTestCaseProcedure } from "./get-test-case.procedure";
import { getTestCallProcedure } from "./get-test-call.procedure";
import { getTestRunProcedure } from "./get-test-run.procedure";
import { listPromptVersionsProcedure } from "./list-prompt-versions.procedure";
import { listTestCallsProcedure } from "./list-test-calls.procedure";
import { listTestCasesProcedure } from "./list-test-cases.procedure";
import { listTestRunsProcedure } from "./list-test-runs.procedure";
import { makePromptVersionCurrentProcedure } from "./make-prompt-version-current.procedure";
import { startTestCallProcedure } from "./start-test-call.procedure";
import { updateTestCaseProcedure } from "./update-test-case.procedure";

/**
 * Agent tests (docs/agent-testing.md): test cases, runs and prompt versions (REST and console; members read, admins
 * write and run), and browser test calls (console only: a signed-in admin gets a single-use WebSocket ticket).
 * Static paths before `{param}` paths.
 */
export const agentTestsRouter = router({
  listTestCases: listTestCasesProcedure,
  createTestCase: createTestCaseProcedure,
  getTestCase: getTestCaseProcedure,
  updateTestCase: updateTestCaseProcedure,
  deleteTestCase: deleteTestCaseProcedure,
  listTestRuns: listTestRunsProcedure,
  createTestRun: createTestRunProcedure,
  getTestRun: getTestRunProcedure,
  listPromptVersions: listPromptVersionsProcedure,
  diffPromptVersions: diffPromptVersionsProcedure,
  makePromptVersionCurrent: makePromptVersionCurrentProcedure,
  startTestCall: startTestCallProcedure,
  listTestCalls: listTestCallsProcedure,
  getTestCall: getTestCallProcedure,
});
