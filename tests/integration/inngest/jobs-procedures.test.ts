import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inngest } from "@/inngest/client";
import { appCodeOfError } from "@/server/errors";
import { createTestAgent, createTestOrganization, createTestSequence } from "../../factories";
import { useTestDb } from "../../helpers/db";
import { startTestInngest, type TestInngest } from "../../helpers/inngest";
import { apiKeyCaller, consoleUser } from "../console/helpers";
import { sampleFunctions } from "./sample-functions";

const db = useTestDb();
let runner: TestInngest;
beforeAll(async () => {
  runner = await startTestInngest({ db, functions: sampleFunctions });
});
afterAll(() => runner.stop());

describe("jobs procedures (background-job visibility)", () => {
  it("show admins runs with their steps, attempts, errors and next wake time", async () => {
    const { organization } = await createTestOrganization(db);
    const { caller } = await consoleUser(db, organization.id, "admin");
    const key = randomUUID();
    await inngest.send([
      { name: "test/sleep", data: { key } },
      { name: "test/retry", data: { key } },
    ]);
    await runner.drain();

    const sleeping = await caller.jobs.listRuns({ functionId: "outbound-calling-test-sleep", status: "running", limit: 200 });
    const sleepRun = sleeping.runs.find((run) => run.eventName === "test/sleep")!;
    expect(sleepRun).toBeDefined();
    const detail = await caller.jobs.getRun({ runId: sleepRun.runId });
    expect(detail.status).toBe("running");
    expect(detail.steps.map((step) => [step.stepId, step.op, step.status])).toEqual([
      ["before", "StepRun", "completed"],
      ["nap", "Sleep", "sleeping"],
    ]);
    expect(detail.nextWakeAt).toBe(new Date(runner.clock.now().getTime() + 86_400_000).toISOString());
    expect(detail.steps[1]!.wakeAt).toBe(detail.nextWakeAt);

    const retrying = (await caller.jobs.listRuns({ functionId: "outbound-calling-test-retry", limit: 200 })).runs.filter(
      (run) => run.status === "running",
    );
    const retryDetail = (await Promise.all(retrying.map((run) => caller.jobs.getRun({ runId: run.runId })))).find(
      (run) => (run.event as { data: { key: string } }).data.key === key,
    )!;
    expect(retryDetail.failedAttempts).toBe(1);
    expect(retryDetail.steps[0]).toMatchObject({ stepId: "flaky", status: "planned", attempts: 1, error: { message: "flaky failure 1" } });
    expect(retryDetail.attempts.map((attempt) => [attempt.stepName, attempt.attempt, attempt.outcome])).toEqual([["flaky", 0, "step-error"]]);
    expect(retryDetail.nextWakeAt).not.toBeNull();

    await runner.advance(86_400_000);
    const done = await caller.jobs.getRun({ runId: sleepRun.runId });
    expect(done.status).toBe("completed");
    expect(done.nextWakeAt).toBeNull();
    expect(done.output).toEqual({ before: { call: 1 }, after: { call: 1 } });
  });

  it("pages newest first", async () => {
    const { organization } = await createTestOrganization(db);
    const { caller } = await consoleUser(db, organization.id, "admin");
    for (let i = 0; i < 3; i++) await inngest.send({ name: "test/parallel", data: { key: randomUUID() } });
    const first = await caller.jobs.listRuns({ limit: 2 });
    expect(first.runs).toHaveLength(2);
    expect(first.nextCursor).toBe(first.runs[1]!.runId);
    const second = await caller.jobs.listRuns({ limit: 2, cursor: first.nextCursor! });
    expect(second.runs[0]!.runId < first.runs[1]!.runId).toBe(true);
  });

  it("refuse members, support staff and API keys", async () => {
    const { organization, apiKey } = await createTestOrganization(db);
    for (const role of ["member", "support"] as const) {
      const { caller } = await consoleUser(db, organization.id, role);
      await expect(caller.jobs.listRuns({ limit: 10 }).catch(appCodeOfError)).resolves.toBe("FORBIDDEN");
    }
    await expect(apiKeyCaller(db, apiKey).jobs.listRuns({ limit: 10 }).catch(appCodeOfError)).resolves.toBe("FORBIDDEN");
    const { caller } = await consoleUser(db, organization.id, "admin");
    await expect(caller.jobs.getRun({ runId: "01UNKNOWN" }).catch(appCodeOfError)).resolves.toBe("NOT_FOUND");
  });

  it("show an organization only the runs about its own entities (plus system runs)", async () => {
    const mine = await createTestOrganization(db);
    const other = await createTestOrganization(db);
    const otherAgent = await createTestAgent(db, other.organization.id);
    const otherSequence = await createTestSequence(db, { organizationId: other.organization.id, agentId: otherAgent.id });
    const key = randomUUID();
    await inngest.send({ name: "test/sleep", data: { key, sequenceId: otherSequence.id } });
    await runner.drain();
    const { caller: mineAdmin } = await consoleUser(db, mine.organization.id, "admin");
    const { caller: otherAdmin } = await consoleUser(db, other.organization.id, "admin");
    const keyOf = (run: { runId: string }) => run.runId;
    const otherRuns = (await otherAdmin.jobs.listRuns({ functionId: "outbound-calling-test-sleep", limit: 200 })).runs;
    const target = (await Promise.all(otherRuns.map((run) => otherAdmin.jobs.getRun({ runId: keyOf(run) })))).find(
      (run) => (run.event as { data: { key?: string } }).data.key === key,
    );
    expect(target).toBeDefined();
    const mineRuns = (await mineAdmin.jobs.listRuns({ functionId: "outbound-calling-test-sleep", limit: 200 })).runs;
    expect(mineRuns.map(keyOf)).not.toContain(target!.runId);
    await expect(mineAdmin.jobs.getRun({ runId: target!.runId }).catch(appCodeOfError)).resolves.toBe("NOT_FOUND");
  });
});
