import { describe, expect, it } from "vitest";
import { useTestDb } from "../../helpers/db";
import { createTestAgent, createTestCall, createTestOrganization, createTestSequence } from "../../factories";
import { apiKeyCaller, consoleCaller } from "./helpers";

const db = useTestDb();

async function orgWithContacts() {
  const { organization, apiKey } = await createTestOrganization(db, { name: "Find a customer" });
  const sales = await createTestAgent(db, organization.id, { name: "Sales" });
  const renewals = await createTestAgent(db, organization.id, { name: "Renewals" });
  const ada = await createTestSequence(db, {
    organizationId: organization.id,
    agentId: sales.id,
    name: "Ada Lovelace",
    phoneNumber: "+14155550171",
    toEmailAddress: "ada@example.test",
    customInputVariables: { crmReference: "CRM-00417", company: "Analytical Engines" },
    timezone: "Europe/London",
  });
  const past = await createTestCall(db, {
    organizationId: organization.id,
    agentId: sales.id,
    sequenceId: ada.id,
    scheduledAt: new Date("2026-11-01T10:00:00Z"),
    endedAt: new Date("2026-11-01T10:04:00Z"),
    resultType: "Goal Completed",
    followUpMeetingDetails: { startTime: "2026-11-30T15:00:00Z", endTime: "2026-11-30T15:30:00Z", hostEmail: "host@example.test", meetingLink: "https://meet.example.test/a" },
    crmSchedulingDetails: { provider: "chili-piper", bookingUid: "bk-1", status: "booked" },
  });
  const next = await createTestCall(db, {
    organizationId: organization.id,
    agentId: sales.id,
    sequenceId: ada.id,
    stepNumber: 2,
    scheduledAt: new Date("2026-12-02T10:00:00Z"),
  });
  // The same person enrolled with another agent: both sequences are found.
  const again = await createTestSequence(db, { organizationId: organization.id, agentId: renewals.id, name: "Ada L.", phoneNumber: "+14155550171" });
  const grace = await createTestSequence(db, { organizationId: organization.id, agentId: renewals.id, name: "Grace Hopper", phoneNumber: "+12025550199" });
  return { organization, apiKey, sales, renewals, ada, again, grace, past, next };
}

describe("customers.find", () => {
  it("finds a contact by a phone number typed in any format, across agents, with last result, next call and meeting", async () => {
    const data = await orgWithContacts();
    const support = await consoleCaller(db, data.organization.id, "support");
    for (const typed of ["(415) 555-0171", "+1 415-555-0171", "415.555.0171", "0014155550171", "5550171"]) {
      const { results } = await support.customers.find({ query: typed });
      expect(new Set(results.map((r) => r.sequenceId)), typed).toEqual(new Set([data.ada.id, data.again.id]));
      expect(results.every((r) => r.matchedOn.includes("phone"))).toBe(true);
    }
    const { results } = await support.customers.find({ query: "(415) 555-0171" });
    const ada = results.find((r) => r.sequenceId === data.ada.id)!;
    expect(ada).toMatchObject({
      contact: { name: "Ada Lovelace", phoneNumber: "+14155550171", email: "ada@example.test", timezone: "Europe/London" },
      agent: { agentId: data.sales.id, name: "Sales" },
      lastCall: { callId: data.past.id, resultType: "Goal Completed", at: "2026-11-01T10:04:00.000Z" },
      nextCall: { callId: data.next.id, scheduledAt: "2026-12-02T10:00:00.000Z" },
      meeting: { callId: data.past.id, startTime: "2026-11-30T15:00:00Z", status: "booked" },
    });
    expect(results.find((r) => r.sequenceId === data.again.id)).toMatchObject({ agent: { name: "Renewals" }, lastCall: null, nextCall: null, meeting: null });
  });

  it("finds by name, email, a custom-variable value, sequence ID and call ID", async () => {
    const data = await orgWithContacts();
    const member = await consoleCaller(db, data.organization.id, "member");
    const ids = async (query: string) => (await member.customers.find({ query })).results.map((r) => r.sequenceId);
    expect(await ids("lovelace")).toEqual([data.ada.id]);
    expect(await ids("ADA@EXAMPLE")).toEqual([data.ada.id]);
    expect(await ids("crm-00417")).toEqual([data.ada.id]);
    expect((await member.customers.find({ query: "CRM-00417" })).results[0]!.matchedVariable).toEqual({ name: "crmReference", value: "CRM-00417" });
    expect(await ids(data.grace.id)).toEqual([data.grace.id]);
    const byCall = await member.customers.find({ query: data.next.id });
    expect(byCall.results).toHaveLength(1);
    expect(byCall.results[0]).toMatchObject({ sequenceId: data.ada.id, callId: data.next.id, matchedOn: ["id"] });
    // LIKE wildcards are literal.
    expect(await ids("%%")).toEqual([]);
    expect(await ids("nobody here")).toEqual([]);
  });

  it("finds nothing of another organization, and refuses API keys and bad input", async () => {
    const data = await orgWithContacts();
    const other = await createTestOrganization(db, { name: "Other" });
    const outsider = await consoleCaller(db, other.organization.id, "admin");
    for (const query of ["(415) 555-0171", "Ada", "CRM-00417", data.ada.id, data.past.id]) {
      expect((await outsider.customers.find({ query })).results, query).toEqual([]);
    }
    await expect(apiKeyCaller(db, data.apiKey).customers.find({ query: "Ada" })).rejects.toMatchObject({ cause: { code: "FORBIDDEN" } });
    const support = await consoleCaller(db, data.organization.id, "support");
    await expect(support.customers.find({ query: "a" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(support.customers.find({ query: "x".repeat(201) })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(support.customers.find({ query: "Ada", limit: 51 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});
