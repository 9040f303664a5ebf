import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { inngest } from "@/inngest/client";
import { appCodeOfError } from "@/server/errors";
import { agentTestRuns, sequenceMessages, type MemberRole } from "@/db/schema";
import { newId } from "@/server/ids";
import { createTestAgent, createTestCall, createTestOrganization, createTestSequence } from "../../factories";
import { useTestDb } from "../../helpers/db";
import { startTestInngest, type TestInngest } from "../../helpers/inngest";
import { apiKeyCaller, consoleUser } from "../console/helpers";
import { sampleFunctions } from "./sample-functions";

/**
 * A run about one organization's sequence whose step gathers data beyond it (as a batched step would): the
 * step output holds another organization's contact.
 */
const batchedReport = inngest.createFunction(
  { id: "test-batched-report", triggers: [{ event: "test/batched-report" }] },
  async ({ event, step }) => {
    const { contacts } = event.data as { contacts: Array<{ name: string; phoneNumber: string }> };
    const gathered = await step.run("gather-contacts", () => ({ contacts }));
    return { gathered: gathered.contacts.length };
  },
);

const db = useTestDb();
let runner: TestInngest;
beforeAll(async () => {
  runner = await startTestInngest({ db, functions: [...sampleFunctions, batchedReport] });
});
afterAll(() => runner.stop());
afterEach(() => {
  vi.unstubAllEnvs();
});

/** A console user of the organization who is also an operator (OPERATOR_EMAILS). */
async function operatorUser(organizationId: string, role: MemberRole = "member") {
  const user = await consoleUser(db, organizationId, role);
  vi.stubEnv("OPERATOR_EMAILS", `ops-one@example.test,${user.userId}@example.test`);
  return user;
}

describe("jobs procedures (background-job visibility)", () => {
  it("show operators every run with its steps, attempts, errors and next wake time", async () => {
    const { organization } = await createTestOrganization(db);
    const { caller: operator } = await operatorUser(organization.id);
    const caller = {
      jobs: {
        listRuns: (input: Parameters<typeof operator.jobs.listRuns>[0]) => operator.jobs.listRuns({ ...input, scope: "all" }),
        getRun: (input: Parameters<typeof operator.jobs.getRun>[0]) => operator.jobs.getRun({ ...input, scope: "all" }),
      },
    };
    const key = randomUUID();
    await inngest.send([
      { name: "test/sleep", data: { key } },
      { name: "test/retry", data: { key } },
    ]);
    await runner.drain();

    // Operators see every runner's runs (other test files' too): pick this test's run by its key.
    const sleeping = await caller.jobs.listRuns({ functionId: "outbound-calling-test-sleep", status: "running", limit: 200 });
    const sleepDetails = await Promise.all(sleeping.runs.map((run) => caller.jobs.getRun({ runId: run.runId })));
    const detail = sleepDetails.find((run) => (run.event as { data: { key?: string } }).data.key === key)!;
    expect(detail).toBeDefined();
    const sleepRun = detail;
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
    const { caller } = await operatorUser(organization.id);
    for (let i = 0; i < 3; i++) await inngest.send({ name: "test/parallel", data: { key: randomUUID() } });
    const first = await caller.jobs.listRuns({ limit: 2, scope: "all" });
    expect(first.runs).toHaveLength(2);
    expect(first.nextCursor).toBe(first.runs[1]!.runId);
    const second = await caller.jobs.listRuns({ limit: 2, cursor: first.nextCursor!, scope: "all" });
    expect(second.runs[0]!.runId < first.runs[1]!.runId).toBe(true);
  });

  it("refuse members, support staff and API keys", async () => {
    const { organization, apiKey } = await createTestOrganization(db);
    for (const role of ["member", "support"] as const) {
      const { caller } = await consoleUser(db, organization.id, role);
      await expect(caller.jobs.listRuns({ limit: 10 }).catch(appCodeOfError)).resolves.toBe("FORBIDDEN");
    }
    await expect(apiKeyCaller(db, apiKey).jobs.listRuns({ limit: 10 }).catch(appCodeOfError)).resolves.toBe("FORBIDDEN");
    await expect(apiKeyCaller(db, apiKey).jobs.listRuns({ limit: 10, scope: "all" }).catch(appCodeOfError)).resolves.toBe("FORBIDDEN");
    const { caller } = await consoleUser(db, organization.id, "admin");
    await expect(caller.jobs.getRun({ runId: "01UNKNOWN" }).catch(appCodeOfError)).resolves.toBe("NOT_FOUND");
    // The all-organizations scope is for operators only, admins included.
    await expect(caller.jobs.listRuns({ limit: 10, scope: "all" }).catch(appCodeOfError)).resolves.toBe("FORBIDDEN");
    await expect(caller.jobs.getRun({ runId: "01UNKNOWN", scope: "all" }).catch(appCodeOfError)).resolves.toBe("FORBIDDEN");
    await expect(caller.jobs.listRuns({ limit: 10, functionId: "x".repeat(201) }).catch(appCodeOfError)).resolves.toBe("INVALID_REQUEST");
  });

  it("show an organization only the runs about its own entities", async () => {
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

  it("regression: system runs (crons, watchdog) and runs naming another organization's entity are hidden from admins; operators see them", async () => {
    const mine = await createTestOrganization(db);
    const other = await createTestOrganization(db);
    const mineSequence = await createTestSequence(db, { organizationId: mine.organization.id, agentId: (await createTestAgent(db, mine.organization.id)).id });
    const otherAgent = await createTestAgent(db, other.organization.id);
    const otherSequence = await createTestSequence(db, { organizationId: other.organization.id, agentId: otherAgent.id });
    const otherCall = await createTestCall(db, { organizationId: other.organization.id, agentId: otherAgent.id, sequenceId: otherSequence.id, scheduledAt: new Date() });
    const key = randomUUID();
    await inngest.send([
      // A system run: names no organization's entity (like the watchdog or a cron sweep).
      { name: "test/sleep", data: { key: `${key}-system` } },
      // Names this organization's sequence and another organization's: not provably this organization's.
      { name: "test/sleep", data: { key: `${key}-mixed`, sequenceId: mineSequence.id, callId: otherCall.id } },
      { name: "test/sleep", data: { key: `${key}-mine`, sequenceId: mineSequence.id } },
    ]);
    await runner.drain();
    const { caller: admin } = await consoleUser(db, mine.organization.id, "admin");
    const visible = await Promise.all(
      (await admin.jobs.listRuns({ functionId: "outbound-calling-test-sleep", limit: 200 })).runs.map((run) => admin.jobs.getRun({ runId: run.runId })),
    );
    const keys = visible.map((run) => (run.event as { data: { key?: string } }).data.key);
    expect(keys).toContain(`${key}-mine`);
    expect(keys).not.toContain(`${key}-system`);
    expect(keys).not.toContain(`${key}-mixed`);

    const { caller: operator } = await operatorUser(other.organization.id);
    const all = await operator.jobs.listRuns({ functionId: "outbound-calling-test-sleep", limit: 200, scope: "all" });
    const allKeys = (await Promise.all(all.runs.map((run) => operator.jobs.getRun({ runId: run.runId, scope: "all" })))).map(
      (run) => (run.event as { data: { key?: string } }).data.key,
    );
    expect(allKeys).toEqual(expect.arrayContaining([`${key}-system`, `${key}-mixed`, `${key}-mine`]));
    // In the organization scope an operator sees what the organization's admins see.
    const scoped = await operator.jobs.listRuns({ functionId: "outbound-calling-test-sleep", limit: 200 });
    const scopedKeys = (await Promise.all(scoped.runs.map((run) => operator.jobs.getRun({ runId: run.runId })))).map(
      (run) => (run.event as { data: { key?: string } }).data.key,
    );
    expect(scopedKeys).not.toContain(`${key}-system`);
    expect(scopedKeys).not.toContain(`${key}-mixed`);
  });

  it("an organization's email/SMS sends and agent test runs are its runs: listed for its admins, hidden from another organization's", async () => {
    const mine = await createTestOrganization(db);
    const other = await createTestOrganization(db);
    const entitiesOf = async (organizationId: string) => {
      const agent = await createTestAgent(db, organizationId);
      const sequence = await createTestSequence(db, { organizationId, agentId: agent.id });
      const messageId = newId("message");
      await db.insert(sequenceMessages).values({ id: messageId, organizationId, agentId: agent.id, sequenceId: sequence.id, stepNumber: 2, channel: "sms", status: "scheduled", scheduledAt: new Date() });
      const runId = newId("test-run");
      await db.insert(agentTestRuns).values({ id: runId, organizationId, agentId: agent.id, promptVersionId: "prompt-version.none", concurrency: 1, total: 0, source: "api" });
      return { messageId, runId };
    };
    const own = await entitiesOf(mine.organization.id);
    const foreign = await entitiesOf(other.organization.id);
    const key = randomUUID();
    await inngest.send([
      { name: "test/sleep", data: { key: `${key}-own-message`, messageId: own.messageId } },
      { name: "test/sleep", data: { key: `${key}-own-test-run`, runId: own.runId } },
      { name: "test/sleep", data: { key: `${key}-foreign-message`, messageId: foreign.messageId } },
      { name: "test/sleep", data: { key: `${key}-foreign-test-run`, runId: foreign.runId } },
      // Its own test run and another organization's message: not provably its own.
      { name: "test/sleep", data: { key: `${key}-mixed`, runId: own.runId, messageId: foreign.messageId } },
    ]);
    await runner.drain();
    const keysSeenBy = async (organizationId: string) => {
      const { caller } = await consoleUser(db, organizationId, "admin");
      const runs = (await caller.jobs.listRuns({ functionId: "outbound-calling-test-sleep", limit: 200 })).runs;
      return (await Promise.all(runs.map((run) => caller.jobs.getRun({ runId: run.runId })))).map((run) => (run.event as { data: { key?: string } }).data.key).filter((seen) => seen?.startsWith(key)).sort();
    };
    expect(await keysSeenBy(mine.organization.id)).toEqual([`${key}-own-message`, `${key}-own-test-run`]);
    expect(await keysSeenBy(other.organization.id)).toEqual([`${key}-foreign-message`, `${key}-foreign-test-run`]);
  });

  it("regression: step outputs of a run about the organization's entity that hold another organization's data are redacted", async () => {
    const mine = await createTestOrganization(db);
    const other = await createTestOrganization(db);
    const sequence = await createTestSequence(db, { organizationId: mine.organization.id, agentId: (await createTestAgent(db, mine.organization.id)).id });
    const secretContact = { name: `Other Org Contact ${randomUUID()}`, phoneNumber: "+12015550188" };
    await inngest.send({ name: "test/batched-report", data: { sequenceId: sequence.id, contacts: [secretContact] } });
    await runner.drain();

    const { caller: admin } = await consoleUser(db, mine.organization.id, "admin");
    const [summary] = (await admin.jobs.listRuns({ functionId: "outbound-calling-test-batched-report", limit: 200 })).runs;
    expect(summary).toBeDefined();
    const seen = await admin.jobs.getRun({ runId: summary!.runId });
    expect(seen.steps).toEqual([expect.objectContaining({ stepId: "gather-contacts", status: "completed", output: null, outputRedacted: true })]);
    expect(seen.output).toBeNull();
    expect(seen.outputRedacted).toBe(true);
    const shownToAdmin = JSON.stringify({ ...seen, event: null });
    expect(shownToAdmin).not.toContain(secretContact.name);
    expect(shownToAdmin).not.toContain(secretContact.phoneNumber);

    // The other organization sees nothing of this run; an operator sees it whole.
    const { caller: otherAdmin } = await consoleUser(db, other.organization.id, "admin");
    await expect(otherAdmin.jobs.getRun({ runId: summary!.runId }).catch(appCodeOfError)).resolves.toBe("NOT_FOUND");
    const { caller: operator } = await operatorUser(other.organization.id);
    const whole = await operator.jobs.getRun({ runId: summary!.runId, scope: "all" });
    expect(whole.steps[0]).toMatchObject({ outputRedacted: false, output: { contacts: [secretContact] } });
    expect(whole.output).toEqual({ gathered: 1 });
  });
});
