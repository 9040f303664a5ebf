import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { agents, webhookDeliveries, webhookDeliveryAttempts } from "@/db/schema";
import { useTestDb } from "../../helpers/db";
import { createTestAgent, createTestCall, createTestOrganization, createTestSequence, createTestTransaction } from "../../factories";
import { createLoopbackEndpoint, useTestEncryptionKey } from "../webhooks/fixtures";
import { apiKeyCaller, consoleCaller } from "./helpers";

useTestEncryptionKey();

const db = useTestDb();
const NOW = new Date("2026-11-20T12:00:00Z");

async function orgWithCalls() {
  const { organization, apiKey } = await createTestOrganization(db, { name: "Overview", monthlyCreditAllocation: 1000 });
  const sales = await createTestAgent(db, organization.id, { name: "Sales" });
  const paused = await createTestAgent(db, organization.id, { name: "Paused" });
  const sequence = await createTestSequence(db, { organizationId: organization.id, agentId: sales.id, name: "Ada" });
  let step = 0;
  const call = (resultType: Parameters<typeof createTestCall>[1]["resultType"], endedAt: string | null, extra: Partial<Parameters<typeof createTestCall>[1]> = {}) =>
    createTestCall(db, {
      organizationId: organization.id,
      agentId: sales.id,
      sequenceId: sequence.id,
      stepNumber: ++step,
      scheduledAt: new Date(endedAt ?? NOW),
      resultType,
      endedAt: endedAt ? new Date(endedAt) : null,
      duration: 90,
      ...extra,
    });
  // In the last 7 days (2026-11-14 .. 2026-11-20): 4 calls, 3 connected, 2 goals, 1 meeting.
  await call("Goal Completed", "2026-11-20T10:00:00Z", {
    followUpMeetingDetails: { startTime: "2026-11-25T09:00:00.000Z", endTime: "2026-11-25T09:30:00.000Z", hostEmail: "h@x.test", meetingLink: "x" },
    crmSchedulingDetails: { provider: "chili-piper", mode: "link", bookingUid: "bk-1" },
  });
  await call("Goal Completed", "2026-11-18T10:00:00Z");
  await call("Voicemail", "2026-11-14T00:00:01Z");
  await call("Busy", "2026-11-16T10:00:00Z");
  // 10 days ago: only in the 30-day view.
  await call("Goal Not Completed", "2026-11-10T10:00:00Z");
  // Outside both: before the 30 days, not placed, or still scheduled.
  await call("Goal Completed", "2026-10-01T10:00:00Z");
  await call("Cancelled", "2026-11-19T10:00:00Z");
  await call("Scheduled", null);
  // Credits: 6 in the last 7 days, 10 in the 30 days (10 this month: 1000 allocated).
  for (const [credits, at] of [[2, "2026-11-20T10:00:00Z"], [4, "2026-11-15T10:00:00Z"], [4, "2026-11-10T10:00:00Z"]] as const) {
    await createTestTransaction(db, { organizationId: organization.id, agentId: sales.id, credits, createdAt: new Date(at) });
  }
  // A paused agent with a call waiting, and its reason.
  const waiting = await createTestSequence(db, { organizationId: organization.id, agentId: paused.id });
  await createTestCall(db, { organizationId: organization.id, agentId: paused.id, sequenceId: waiting.id, scheduledAt: new Date("2026-11-21T10:00:00Z") });
  await db.update(agents).set({ status: "PAUSED", pauseReason: "Calling hours complaint", pauseSource: "manual", pausedAt: NOW }).where(eq(agents.id, paused.id));
  return { organization, apiKey, sales, paused };
}

describe("overview.get", () => {
  it("counts the period's calls, rates, meetings and credits, forecasts the month and raises alerts", async () => {
    const data = await orgWithCalls();
    const member = await consoleCaller(db, data.organization.id, "member", () => NOW);
    const week = await member.overview.get({ days: 7 });
    expect(week.period).toEqual({ days: 7, startDate: "2026-11-14", endDate: "2026-11-20" });
    expect(week.totals).toEqual({ calls: 4, connected: 3, goalCompleted: 2, meetingsBooked: 1, spentCredits: 6, connectRate: 75, goalCompletionRate: 66.7 });
    expect(week.daily).toHaveLength(7);
    expect(week.daily.find((d) => d.date === "2026-11-20")).toEqual({ date: "2026-11-20", calls: 1, connected: 1, goalCompleted: 1, meetingsBooked: 1, spentCredits: 2 });
    expect(week.recentCalls.map((c) => c.resultType)).toEqual(["Goal Completed", "Goal Completed", "Busy", "Voicemail", "Goal Not Completed", "Goal Completed"]);
    expect(week.recentCalls[0]).toMatchObject({ contactName: "Ada", agentName: "Sales", durationSeconds: 90, endedAt: "2026-11-20T10:00:00.000Z" });

    const month = await member.overview.get({ days: 30 });
    expect(month.totals).toMatchObject({ calls: 5, connected: 4, goalCompleted: 2, spentCredits: 10, connectRate: 80, goalCompletionRate: 50 });
    expect(month.daily).toHaveLength(30);

    // 6 credits over 7 days: 0.9 a day; 990 left lasts past the month's end.
    expect(week.month).toMatchObject({ month: "2026-11", allocatedCredits: 1000, spentCredits: 10, remainingCredits: 990, dailyBurn: 0.9, runsOutBeforeMonthEnd: false });
    expect(week.month.runsOutOn).toBe("2030-01-18"); // 990 / (6 / 7) = 1155 days
    expect(week.alerts.lowCredits).toBe(false);
    expect(week.alerts.pausedAgents).toEqual([
      { agentId: data.paused.id, name: "Paused", pauseReason: "Calling hours complaint", pauseSource: "manual", pausedAt: NOW.toISOString(), pendingCalls: 1 },
    ]);
    expect(week.alerts.failingEndpoints).toEqual([]);
  });

  it("raises the low-credits alert when the allocation runs out before the month ends", async () => {
    const { organization } = await createTestOrganization(db, { name: "Low", monthlyCreditAllocation: 100 });
    const agent = await createTestAgent(db, organization.id);
    await createTestTransaction(db, { organizationId: organization.id, agentId: agent.id, credits: 70, createdAt: new Date("2026-11-19T10:00:00Z") });
    const overview = await (await consoleCaller(db, organization.id, "member", () => NOW)).overview.get({ days: 7 });
    // 70 credits in 7 days = 10 a day; 30 left: gone in 3 days.
    expect(overview.month).toMatchObject({ remainingCredits: 30, dailyBurn: 10, runsOutOn: "2026-11-23", runsOutBeforeMonthEnd: true });
    expect(overview.alerts.lowCredits).toBe(true);
  });

  it("alerts on a webhook endpoint whose deliveries fail", async () => {
    const { organization } = await createTestOrganization(db, { name: "Failing hooks" });
    const { endpoint } = await createLoopbackEndpoint(db, organization.id, "http://127.0.0.1:9/failing");
    await db.insert(webhookDeliveries).values({ id: "whd.overview-failing", organizationId: organization.id, endpointId: endpoint.endpointId, kind: "test", messageId: "msg_overview", body: "{}", status: "failed", attemptCount: 1 });
    await db.insert(webhookDeliveryAttempts).values({
      id: "whd.overview-failing-a1",
      deliveryId: "whd.overview-failing",
      organizationId: organization.id,
      attemptNumber: 1,
      trigger: "automatic",
      url: "http://127.0.0.1:9/failing",
      webhookTimestamp: Math.floor(NOW.getTime() / 1000) - 60,
      attemptedAt: new Date(NOW.getTime() - 60_000),
      durationMs: 5,
      statusCode: 500,
      succeeded: false,
    });
    const overview = await (await consoleCaller(db, organization.id, "support", () => NOW)).overview.get({ days: 7 });
    expect(overview.alerts.failingEndpoints).toEqual([
      { endpointId: endpoint.endpointId, url: "http://127.0.0.1:9/failing", failingSince: new Date(NOW.getTime() - 60_000).toISOString(), consecutiveFailures: 1 },
    ]);
  });

  it("shows another organization nothing, refuses API keys and bounds its input", async () => {
    const data = await orgWithCalls();
    const other = await createTestOrganization(db, { name: "Other" });
    const outsider = await (await consoleCaller(db, other.organization.id, "admin", () => NOW)).overview.get({ days: 30 });
    expect(outsider.totals).toEqual({ calls: 0, connected: 0, goalCompleted: 0, meetingsBooked: 0, spentCredits: 0, connectRate: null, goalCompletionRate: null });
    expect(outsider.recentCalls).toEqual([]);
    expect(outsider.alerts).toEqual({ failingEndpoints: [], pausedAgents: [], lowCredits: false });
    expect(outsider.month).toMatchObject({ spentCredits: 0, runsOutOn: null });
    await expect(apiKeyCaller(db, data.apiKey).overview.get({ days: 7 })).rejects.toMatchObject({ cause: { code: "FORBIDDEN" } });
    const member = await consoleCaller(db, data.organization.id, "member", () => NOW);
    for (const bad of [{ days: 14 }, { days: 0 }, { days: "7" }]) {
      await expect(member.overview.get(bad as never), JSON.stringify(bad)).rejects.toMatchObject({ code: "BAD_REQUEST" });
    }
  });
});
