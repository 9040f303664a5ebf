import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { calls, meetings } from "@/db/schema";
import { ChiliPiperClient, ProviderRequestError } from "@/server/providers/chili-piper/client";
import { bookMeetingForCall } from "@/server/services/calendar/book-meeting";
import { SIMULATOR_CRM_CONTACT_DOMAIN } from "@/server/services/calendar/simulator-fixtures";
import { SIM_IDS } from "@/server/simulators/chili-piper";
import { useTestDb } from "../../helpers/db";
import { createBookingAgent, createCallToBook, createConnectedOrganization, useChiliPiperSimulator } from "./helpers";

const db = useTestDb();
const sim = useChiliPiperSimulator({ conciergeRouteTtlMs: 60_000 });

async function callRow(callId: string) {
  const [row] = await db.select().from(calls).where(eq(calls.id, callId));
  return row!;
}

async function meetingRow(callId: string) {
  const [row] = await db.select().from(meetings).where(eq(meetings.callId, callId));
  return row;
}

const hostEmails = ["alex.rivera@sim-acme.example", "blair.chen@sim-acme.example"];

describe("link-based booking", () => {
  it("books through the scheduling link and writes followUpMeetingDetails and crmSchedulingDetails", async () => {
    const { organization } = await createConnectedOrganization(db, sim.current);
    const agent = await createBookingAgent(db, organization.id, "link");
    const call = await createCallToBook(db, { organizationId: organization.id, agentId: agent.id, email: "ana.guest@example.org", name: "Ana Guest" });

    const result = await bookMeetingForCall(db, { callId: call.id });
    expect(result.status).toBe("booked");
    if (result.status !== "booked") return;

    const stored = await callRow(call.id);
    expect(stored.crmSchedulingDetails).toEqual({
      provider: "chili-piper",
      mode: "link",
      bookingUid: result.bookingUid,
      status: "booked",
      workspaceId: SIM_IDS.workspaces.sales,
      routeId: expect.any(String),
    });
    const details = stored.followUpMeetingDetails!;
    expect(hostEmails).toContain(details.hostEmail);
    expect(details.meetingLink).toMatch(/^https:\/\/meet\.sim-acme\.example\/j\//);
    expect(Date.parse(details.startTime)).toBeGreaterThan(Date.now());
    expect(Date.parse(details.endTime) - Date.parse(details.startTime)).toBe(30 * 60_000);

    // The provider holds the meeting: the host decided by the link, the caller as the invited attendee.
    const providerMeeting = sim.current.getMeeting(result.bookingUid)!;
    expect(providerMeeting.status).toBe("Active");
    expect(providerMeeting.source).toMatchObject({ type: "SchedulingLink", linkId: SIM_IDS.links.roundRobin, routeId: stored.crmSchedulingDetails.routeId });
    expect(providerMeeting.attendees).toEqual([
      expect.objectContaining({ email: "ana.guest@example.org", name: "Ana Guest", timeZone: "America/New_York", phoneNumber: "+12015550120" }),
    ]);
    expect(result.action).toMatchObject({ actionKey: "book_meeting", status: "completed" });
  });

  it("books at most one meeting per call: a second attempt returns the first booking", async () => {
    const { organization } = await createConnectedOrganization(db, sim.current);
    const agent = await createBookingAgent(db, organization.id, "link");
    const call = await createCallToBook(db, { organizationId: organization.id, agentId: agent.id });
    const before = sim.current.state.meetings.size;
    const [first, second] = await Promise.all([bookMeetingForCall(db, { callId: call.id }), bookMeetingForCall(db, { callId: call.id })]);
    const statuses = [first.status, second.status].sort();
    expect(statuses[0]).toBe("booked");
    expect(["booked", "skipped"]).toContain(statuses[1]);
    const third = await bookMeetingForCall(db, { callId: call.id });
    expect(third).toMatchObject({ status: "booked", alreadyBooked: true });
    expect(sim.current.state.meetings.size).toBe(before + 1);
  });

  it("books the first offered slot at or after a time the caller asked for", async () => {
    const { organization } = await createConnectedOrganization(db, sim.current);
    const agent = await createBookingAgent(db, organization.id, "link");
    const call = await createCallToBook(db, { organizationId: organization.id, agentId: agent.id });
    const preferred = new Date(Date.now() + 3 * 86_400_000);
    const result = await bookMeetingForCall(db, { callId: call.id, preferredStartTime: preferred });
    expect(result.status).toBe("booked");
    if (result.status === "booked") expect(Date.parse(result.followUpMeetingDetails.startTime)).toBeGreaterThanOrEqual(preferred.getTime());
  });

  it("fails without an email address and records why, without failing", async () => {
    const { organization } = await createConnectedOrganization(db, sim.current);
    const agent = await createBookingAgent(db, organization.id, "link");
    const call = await createCallToBook(db, { organizationId: organization.id, agentId: agent.id, email: null });
    const result = await bookMeetingForCall(db, { callId: call.id });
    expect(result).toMatchObject({ status: "failed", errorCode: "MISSING_EMAIL" });
    expect((await meetingRow(call.id))?.status).toBe("failed");
    expect((await callRow(call.id)).crmSchedulingDetails).toEqual({});
  });

  it("skips calls whose agent has no booking configuration", async () => {
    const { organization } = await createConnectedOrganization(db, sim.current);
    const { createAgent } = await import("@/server/services/agents/create-agent");
    const agent = await createAgent(db, { organizationId: organization.id, name: "No calendar" });
    const call = await createCallToBook(db, { organizationId: organization.id, agentId: agent.id });
    expect(await bookMeetingForCall(db, { callId: call.id })).toMatchObject({ status: "skipped", reason: "NO_BOOKING_CONFIG" });
    expect(await meetingRow(call.id)).toBeUndefined();
  });
});

describe("CRM-dependent booking", () => {
  it("books through the handoff router and the distribution when the caller is a CRM contact", async () => {
    const { organization } = await createConnectedOrganization(db, sim.current);
    const agent = await createBookingAgent(db, organization.id, "crm");
    const call = await createCallToBook(db, { organizationId: organization.id, agentId: agent.id, email: `lee@${SIMULATOR_CRM_CONTACT_DOMAIN}` });
    const result = await bookMeetingForCall(db, { callId: call.id });
    expect(result.status).toBe("booked");
    if (result.status !== "booked") return;
    expect(result.crmSchedulingDetails).toMatchObject({ mode: "crm", workspaceId: SIM_IDS.workspaces.sales, status: "booked" });
    const providerMeeting = sim.current.getMeeting(result.bookingUid)!;
    expect(providerMeeting.source).toMatchObject({ type: "Handoff", routerId: SIM_IDS.handoffRouters.sdrToAe, distributionId: SIM_IDS.distributions.aeRoundRobin });
    expect(providerMeeting.bookerUserId).toBe(SIM_IDS.users.sam);
    expect(hostEmails).toContain(result.followUpMeetingDetails.hostEmail);
  });

  it("fails when the caller is not in the CRM, and never falls back to a scheduling link", async () => {
    const { organization } = await createConnectedOrganization(db, sim.current);
    const agent = await createBookingAgent(db, organization.id, "crm");
    const call = await createCallToBook(db, { organizationId: organization.id, agentId: agent.id, email: "stranger@not-in-crm.example" });
    const meetingsBefore = sim.current.state.meetings.size;
    const requestsBefore = sim.current.requests.length;

    const result = await bookMeetingForCall(db, { callId: call.id });
    expect(result).toMatchObject({ status: "failed", mode: "crm", errorCode: "CRM_NO_MATCH" });

    const made = sim.current.requests.slice(requestsBefore).map((r) => r.path);
    expect(made.some((path) => path.includes("/handoff/workspace/"))).toBe(true);
    expect(made.some((path) => path.includes("schedulingLinks") || path.includes("concierge"))).toBe(false);
    expect(sim.current.state.meetings.size).toBe(meetingsBefore);
    const stored = await callRow(call.id);
    expect(stored.followUpMeetingDetails).toBeNull();
    expect(stored.crmSchedulingDetails).toEqual({});
    expect(await meetingRow(call.id)).toMatchObject({ status: "failed", errorCode: "CRM_NO_MATCH" });
  });

  it("uses a workspace named in the known input values", async () => {
    const { organization } = await createConnectedOrganization(db, sim.current);
    const agent = await createBookingAgent(db, organization.id, "crm");
    const call = await createCallToBook(db, {
      organizationId: organization.id,
      agentId: agent.id,
      email: `kim@${SIMULATOR_CRM_CONTACT_DOMAIN}`,
      customInputVariables: { workspace: "sales" },
    });
    const result = await bookMeetingForCall(db, { callId: call.id });
    expect(result).toMatchObject({ status: "booked", crmSchedulingDetails: { workspaceId: SIM_IDS.workspaces.sales } });
  });
});

describe("concierge booking", () => {
  it("books through the router, looking its address up at call time, with an address for in-person meetings", async () => {
    const { organization } = await createConnectedOrganization(db, sim.current);
    const agent = await createBookingAgent(db, organization.id, {
      mode: "concierge",
      provider: "chili-piper",
      conciergeRouterId: SIM_IDS.conciergeRouters.onsite,
      workspaceId: SIM_IDS.workspaces.partners,
    });
    // Renamed after configuration: its slug (address) changes, its stable ID does not.
    const { slug } = sim.current.renameConciergeRouter(SIM_IDS.conciergeRouters.onsite, `On-site visit ${Date.now()}`);
    const call = await createCallToBook(db, { organizationId: organization.id, agentId: agent.id, email: "walk.in@example.org" });
    const requestsBefore = sim.current.requests.length;

    const result = await bookMeetingForCall(db, { callId: call.id });
    expect(result.status).toBe("booked");
    if (result.status !== "booked") return;
    expect(sim.current.requests.slice(requestsBefore).map((r) => r.path)).toContain(`/v1/org/concierge/routers/${slug}/rest`);
    expect(result.followUpMeetingDetails.meetingLink).toBe("500 Market Street, Suite 300, San Francisco, CA 94105");
    expect(result.crmSchedulingDetails).toMatchObject({ mode: "concierge", workspaceId: SIM_IDS.workspaces.partners });
    expect(sim.current.getMeeting(result.bookingUid)?.source.type).toBe("Concierge");
  });

  it("refuses a concierge route ID used twice or after it expired", async () => {
    const client = new ChiliPiperClient({ apiKey: sim.current.defaultApiKey, baseUrl: sim.current.url });
    const guest = { email: "twice@example.org", name: "Twice Tried" };
    const interval = { startsAt: new Date().toISOString(), duration: "P7D" };

    const first = await client.routeConcierge({ slug: "inbound-demo-request", guest, interval });
    const booked = await client.scheduleConcierge(first.routeId, first.startTimes[0]!);
    expect(booked.meetingId).toBeTruthy();
    const reuse = await client.scheduleConcierge(first.routeId, first.startTimes[1]!).catch((e: unknown) => e);
    expect(reuse).toBeInstanceOf(ProviderRequestError);
    expect(reuse).toMatchObject({ code: "PROVIDER_ERROR", providerStatus: 409, providerErrorCode: "RouteAlreadyUsed" });

    const second = await client.routeConcierge({ slug: "inbound-demo-request", guest, interval });
    sim.current.advanceTime(61_000);
    const late = await client.scheduleConcierge(second.routeId, second.startTimes[0]!).catch((e: unknown) => e);
    expect(late).toMatchObject({ code: "PROVIDER_ERROR", providerStatus: 410, providerErrorCode: "RouteExpired" });
  });
});

describe("provider failures during a booking", () => {
  it("records an unavailable provider without touching the call, and a later attempt books", async () => {
    const { organization } = await createConnectedOrganization(db, sim.current);
    const agent = await createBookingAgent(db, organization.id, "link");
    const call = await createCallToBook(db, { organizationId: organization.id, agentId: agent.id });
    sim.current.setDown(true);
    let result;
    try {
      result = await bookMeetingForCall(db, { callId: call.id });
    } finally {
      sim.current.setDown(false);
    }
    expect(result).toMatchObject({ status: "failed", errorCode: "PROVIDER_UNAVAILABLE" });
    const stored = await callRow(call.id);
    expect(stored.followUpMeetingDetails).toBeNull();
    expect(stored.crmSchedulingDetails).toEqual({});
    expect(await meetingRow(call.id)).toMatchObject({ status: "failed", errorCode: "PROVIDER_UNAVAILABLE" });

    expect(await bookMeetingForCall(db, { callId: call.id })).toMatchObject({ status: "booked", alreadyBooked: false });
    expect(await meetingRow(call.id)).toMatchObject({ status: "booked", attempts: 2, errorCode: null });
  });

  it("fails cleanly when the organization never connected a provider", async () => {
    const { createTestOrganization } = await import("../../factories");
    const { organization } = await createTestOrganization(db);
    const agent = await createBookingAgent(db, organization.id, "link");
    const call = await createCallToBook(db, { organizationId: organization.id, agentId: agent.id });
    expect(await bookMeetingForCall(db, { callId: call.id })).toMatchObject({ status: "failed", errorCode: "PROVIDER_NOT_CONNECTED" });
  });
});
