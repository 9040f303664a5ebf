import { describe, expect, it } from "vitest";
import { useTestDb } from "../../helpers/db";
import { createTestAgent, createTestCall, createTestOrganization, createTestSequence } from "../../factories";
import { apiKeyCaller, consoleCaller } from "./helpers";

const db = useTestDb();
const NOW = new Date("2026-11-20T12:00:00Z");

async function orgWithMeetings() {
  const { organization, apiKey } = await createTestOrganization(db, { name: "Meetings" });
  const sales = await createTestAgent(db, organization.id, { name: "Sales" });
  const renewals = await createTestAgent(db, organization.id, { name: "Renewals" });
  const meeting = async (agentId: string, name: string, startTime: string, hostEmail: string, status?: "booked" | "cancelled") => {
    const sequence = await createTestSequence(db, { organizationId: organization.id, agentId, name, timezone: "Asia/Tokyo" });
    return createTestCall(db, {
      organizationId: organization.id,
      agentId,
      sequenceId: sequence.id,
      scheduledAt: new Date("2026-11-01T10:00:00Z"),
      resultType: "Goal Completed",
      followUpMeetingDetails: { startTime, endTime: new Date(Date.parse(startTime) + 1_800_000).toISOString(), hostEmail, meetingLink: "https://meet.example.test/x" },
      crmSchedulingDetails: { provider: "chili-piper", mode: "link", bookingUid: `bk-${name}`, ...(status ? { status } : {}) },
    });
  };
  const soon = await meeting(sales.id, "Soon", "2026-11-21T09:00:00.000Z", "alice@host.test", "booked");
  const later = await meeting(renewals.id, "Later", "2026-11-25T09:00:00.000Z", "bob@host.test");
  const monthAgo = await meeting(sales.id, "Month ago", "2026-10-20T09:00:00.000Z", "alice@host.test", "booked");
  const cancelled = await meeting(sales.id, "Cancelled", "2026-11-22T09:00:00.000Z", "bob@host.test", "cancelled");
  // A call without a booking is no meeting.
  const plain = await createTestSequence(db, { organizationId: organization.id, agentId: sales.id });
  await createTestCall(db, { organizationId: organization.id, agentId: sales.id, sequenceId: plain.id, scheduledAt: NOW });
  return { organization, apiKey, sales, renewals, soon, later, monthAgo, cancelled };
}

describe("meetings.list", () => {
  it("lists upcoming, past and cancelled meetings with agent, host and date-range filters", async () => {
    const data = await orgWithMeetings();
    const member = await consoleCaller(db, data.organization.id, "member", () => NOW);
    const ids = async (input: Parameters<typeof member.meetings.list>[0]) => (await member.meetings.list(input)).meetings.map((m) => m.callId);

    expect(await ids({ when: "upcoming", status: "booked" })).toEqual([data.soon.id, data.later.id]);
    expect(await ids({ when: "past" })).toEqual([data.monthAgo.id]);
    expect(await ids({ status: "cancelled" })).toEqual([data.cancelled.id]);
    expect(await ids({})).toEqual([data.later.id, data.cancelled.id, data.soon.id, data.monthAgo.id]);
    expect(await ids({ agentId: data.renewals.id })).toEqual([data.later.id]);
    expect(await ids({ host: "ALICE@" })).toEqual([data.soon.id, data.monthAgo.id]);
    expect(await ids({ from: "2026-11-21T00:00:00Z", to: "2026-11-23T00:00:00Z" })).toEqual([data.cancelled.id, data.soon.id]);

    const page = await member.meetings.list({ limit: 2, offset: 2 });
    expect(page.total).toBe(4);
    expect(page.meetings.map((m) => m.callId)).toEqual([data.soon.id, data.monthAgo.id]);
    const [past] = (await member.meetings.list({ when: "past" })).meetings;
    expect(past).toMatchObject({
      contact: { name: "Month ago", timezone: "Asia/Tokyo" },
      agent: { agentId: data.sales.id, name: "Sales" },
      hostEmail: "alice@host.test",
      status: "booked",
      mode: "link",
      bookingUid: "bk-Month ago",
      started: true,
    });
    expect((await member.meetings.list({ when: "upcoming" })).meetings.every((m) => !m.started)).toBe(true);
  });

  it("shows another organization nothing, refuses API keys and bounds its input", async () => {
    const data = await orgWithMeetings();
    const other = await createTestOrganization(db, { name: "Other" });
    const outsider = await consoleCaller(db, other.organization.id, "admin", () => NOW);
    expect(await outsider.meetings.list({})).toEqual({ meetings: [], total: 0 });
    expect(await outsider.meetings.list({ agentId: data.sales.id })).toEqual({ meetings: [], total: 0 });
    await expect(apiKeyCaller(db, data.apiKey).meetings.list({})).rejects.toMatchObject({ cause: { code: "FORBIDDEN" } });
    const support = await consoleCaller(db, data.organization.id, "support", () => NOW);
    for (const bad of [{ limit: 101 }, { offset: -1 }, { from: "yesterday" }, { host: "x".repeat(255) }, { from: "2026-11-02T00:00:00Z", to: "2026-11-01T00:00:00Z" }]) {
      await expect(support.meetings.list(bad), JSON.stringify(bad)).rejects.toMatchObject({ code: "BAD_REQUEST" });
    }
  });
});
