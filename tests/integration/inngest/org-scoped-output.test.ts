import { describe, expect, it } from "vitest";
import type { RunDetail, RunStep } from "@/server/services/jobs/run-types";
import { redactRunForOrganization } from "@/server/services/jobs/org-scoped-output";
import { createTestAgent, createTestCall, createTestOrganization, createTestSequence } from "../../factories";
import { useTestDb } from "../../helpers/db";

const db = useTestDb();

async function orgWithCall() {
  const { organization } = await createTestOrganization(db);
  const agent = await createTestAgent(db, organization.id);
  const sequence = await createTestSequence(db, { organizationId: organization.id, agentId: agent.id });
  const call = await createTestCall(db, { organizationId: organization.id, agentId: agent.id, sequenceId: sequence.id, scheduledAt: new Date() });
  return { organization, sequence, call };
}

function step(stepId: string, output: unknown): RunStep {
  const at = new Date();
  return { stepId, hashedId: `h-${stepId}`, name: stepId, op: "StepRun", status: "completed", attempts: 0, wakeAt: null, waitEvent: null, waitExpression: null, output, error: null, createdAt: at, completedAt: at };
}

function run(functionId: string, steps: RunStep[], output: unknown): RunDetail {
  const at = new Date();
  return {
    runId: "01RUN",
    functionId,
    functionName: functionId,
    status: "completed",
    eventName: "sequence/started",
    partition: "default",
    createdAt: at,
    startedAt: at,
    endedAt: at,
    nextWakeAt: null,
    stepCount: steps.length,
    failedAttempts: 0,
    error: null,
    event: { name: "sequence/started", data: {} },
    output,
    steps,
    attempts: steps.map((s) => ({ stepId: s.hashedId, stepName: s.name, attempt: 0, outcome: "step-failed", httpStatus: 206, error: { name: "Error", message: `about ${JSON.stringify(s.output)}` }, runnerId: "r", startedAt: at, durationMs: 1 })),
  };
}

describe("organization view of a run's outputs", () => {
  it("shows listed steps of the app's organization functions, and hides unlisted steps and outputs naming other organizations' entities", async () => {
    const mine = await orgWithCall();
    const other = await orgWithCall();
    const detail = run(
      "outbound-calling-deliver-webhook",
      [
        step("attempt-1", { outcome: "retry", callId: mine.call.id }),
        step("attempt-2", { outcome: "succeeded", callId: other.call.id }),
        step("mystery-step", { hello: "world" }),
      ],
      { sequenceId: mine.sequence.id, rounds: 1 },
    );
    const seen = await redactRunForOrganization(db, detail, mine.organization.id);
    expect(seen.steps.map((s) => [s.stepId, s.outputRedacted, s.output])).toEqual([
      ["attempt-1", false, { outcome: "retry", callId: mine.call.id }],
      ["attempt-2", true, null],
      ["mystery-step", true, null],
    ]);
    expect(seen.attempts.map((a) => a.error?.message.startsWith("Hidden"))).toEqual([false, true, true]);
    expect(seen.output).toEqual({ sequenceId: mine.sequence.id, rounds: 1 });
    expect(seen.outputRedacted).toBe(false);

    const foreignOutput = await redactRunForOrganization(db, run("outbound-calling-deliver-webhook", [], { sequenceId: other.sequence.id }), mine.organization.id);
    expect(foreignOutput).toMatchObject({ output: null, outputRedacted: true });
    const unknownFunction = await redactRunForOrganization(db, run("outbound-calling-some-new-function", [step("attempt-1", { ok: 1 })], { ok: 1 }), mine.organization.id);
    expect(unknownFunction).toMatchObject({ output: null, outputRedacted: true, steps: [expect.objectContaining({ output: null, outputRedacted: true })] });
  });
});
