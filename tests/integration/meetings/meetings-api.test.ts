import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { calls, meetings } from "@/db/schema";
import { bookMeetingForCall } from "@/server/services/calendar/book-meeting";
import { reconcileMeetingStatus } from "@/server/services/meetings/reconcile-meeting";
import { apiClient, type ApiResult } from "../../helpers/api";
import { useTestDb } from "../../helpers/db";
import { captureLogs } from "../../helpers/logs";
import { createBookingAgent, createCallToBook, createConnectedOrganization, useChiliPiperSimulator } from "./helpers";

const db = useTestDb();
const api = apiClient(db);
const sim = useChiliPiperSimulator();

/** Everything the app logged and answered in this file: the provider key must appear in none of it. */
const logs = captureLogs();
const answered: string[] = [];
const providerKeys: string[] = [];

async function call<T = any>(path: string, options: Parameters<typeof api>[1] = {}): Promise<ApiResult<T>> {
  const result = await api<T>(path, options);
  answered.push(result.text);
  return result;
}

/** An organization with its API key and a meeting booked (through the link agent) during one of its calls. */
async function bookedMeeting(options: { startedAlready?: boolean; email?: string } = {}) {
  const org = await createConnectedOrganization(db, sim.current);
  providerKeys.push(org.providerKey);
  const agent = await createBookingAgent(db, org.organization.id, "link");
  const callRow = await createCallToBook(db, { organizationId: org.organization.id, agentId: agent.id, email: options.email ?? "first.guest@example.org", name: "First Guest" });
  const now = options.startedAlready ? new Date(Date.now() - 5 * 86_400_000) : undefined;
  const result = await bookMeetingForCall(db, { callId: callRow.id, now, preferredStartTime: now });
  if (result.status !== "booked") throw new Error(`booking failed: ${JSON.stringify(result)}`);
  return { ...org, entityId: callRow.id, bookingUid: result.bookingUid };
}

async function storedDetails(callId: string) {
  const [row] = await db.select({ details: calls.crmSchedulingDetails }).from(calls).where(eq(calls.id, callId));
  return row!.details;
}

const attendee = (i: number) => ({ email: `guest${i}@example.org`, name: `Guest ${i}`, timeZone: "Europe/Berlin", phoneNumber: "+4930901820", language: "de" });

describe("GET /conversations/meetings/{entityId}/attendees", () => {
  it("reads the attendees live from the provider", async () => {
    const m = await bookedMeeting();
    const res = await call(`/conversations/meetings/${m.entityId}/attendees`, { key: m.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      entityId: m.entityId,
      bookingUid: m.bookingUid,
      attendees: [{ email: "first.guest@example.org", name: "First Guest", timeZone: "America/New_York", phoneNumber: "+12015550120" }],
    });
    // Changed at the provider, seen at once: nothing is cached on our side.
    sim.current.state.addAttendee(m.bookingUid, { email: "added.elsewhere@example.org" });
    const again = await call(`/conversations/meetings/${m.entityId}/attendees`, { key: m.apiKey });
    expect(again.body.attendees.at(-1)).toEqual({ email: "added.elsewhere@example.org" });
  });

  it("answers 404 MEETING_NOT_FOUND for unknown entities, other organizations' calls and calls without a meeting", async () => {
    const m = await bookedMeeting();
    const other = await createConnectedOrganization(db, sim.current);
    const agent = await createBookingAgent(db, other.organization.id, "link");
    const unbooked = await createCallToBook(db, { organizationId: other.organization.id, agentId: agent.id });
    for (const [entityId, key] of [
      ["call.01doesnotexist", m.apiKey],
      [m.entityId, other.apiKey],
      [unbooked.id, other.apiKey],
    ] as const) {
      const res = await call(`/conversations/meetings/${entityId}/attendees`, { key });
      expect(res.status, entityId).toBe(404);
      expect(res.body).toEqual({ error: "MEETING_NOT_FOUND", message: expect.any(String) });
    }
    expect((await call(`/conversations/meetings/${m.entityId}/attendees`)).status).toBe(401);
  });
});

describe("POST /conversations/meetings/{entityId}/attendees", () => {
  it("adds one attendee and returns the full reconciled list", async () => {
    const m = await bookedMeeting();
    const res = await call(`/conversations/meetings/${m.entityId}/attendees`, { method: "POST", key: m.apiKey, body: { attendees: [attendee(1)] } });
    expect(res.status).toBe(200);
    expect(res.body.entityId).toBe(m.entityId);
    expect(res.body.bookingUid).toBe(m.bookingUid);
    expect(res.body.attendees).toEqual([
      expect.objectContaining({ email: "first.guest@example.org" }),
      { email: "guest1@example.org", name: "Guest 1", timeZone: "Europe/Berlin", phoneNumber: "+4930901820" },
    ]);
    expect(sim.current.getMeeting(m.bookingUid)!.attendees.at(-1)).toMatchObject({ email: "guest1@example.org", language: "de" });
  });

  it("accepts 30 attendees in one request and refuses 31 (and 0)", async () => {
    const m = await bookedMeeting();
    const thirty = Array.from({ length: 30 }, (_, i) => ({ email: `member${i}@example.org` }));
    const ok = await call(`/conversations/meetings/${m.entityId}/attendees`, { method: "POST", key: m.apiKey, body: { attendees: thirty } });
    expect(ok.status).toBe(200);
    expect(ok.body.attendees).toHaveLength(31);
    expect(ok.body.attendees.slice(1)).toEqual(thirty);

    const before = sim.current.getMeeting(m.bookingUid)!.attendees.length;
    const tooMany = await call(`/conversations/meetings/${m.entityId}/attendees`, {
      method: "POST",
      key: m.apiKey,
      body: { attendees: Array.from({ length: 31 }, (_, i) => ({ email: `extra${i}@example.org` })) },
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toMatchObject({ error: "INVALID_REQUEST", message: expect.stringContaining("attendees") });
    const none = await call(`/conversations/meetings/${m.entityId}/attendees`, { method: "POST", key: m.apiKey, body: { attendees: [] } });
    expect(none.status).toBe(400);
    expect(sim.current.getMeeting(m.bookingUid)!.attendees.length).toBe(before);
  });

  it("validates each attendee: email required and valid, IANA timeZone, E.164 phoneNumber", async () => {
    const m = await bookedMeeting();
    const cases: Array<[unknown, string]> = [
      [{ name: "No Email" }, "attendees.0.email"],
      [{ email: "not-an-email" }, "attendees.0.email"],
      [{ email: "ok@example.org" }, ""],
      [{ email: "tz@example.org", timeZone: "Mars/Olympus" }, "attendees.0.timeZone"],
      [{ email: "tz@example.org", timeZone: "+02:00" }, "attendees.0.timeZone"],
      [{ email: "ph@example.org", phoneNumber: "415 555 0123" }, "attendees.0.phoneNumber"],
    ];
    for (const [value, field] of cases) {
      if (!field) continue;
      const res = await call(`/conversations/meetings/${m.entityId}/attendees`, { method: "POST", key: m.apiKey, body: { attendees: [value] } });
      expect(res.status, JSON.stringify(value)).toBe(400);
      expect(res.body.error).toBe("INVALID_REQUEST");
      expect(res.body.message).toContain(field);
    }
    const mixed = await call(`/conversations/meetings/${m.entityId}/attendees`, {
      method: "POST",
      key: m.apiKey,
      body: { attendees: [{ email: "good@example.org" }, { email: "bad" }] },
    });
    expect(mixed.status).toBe(400);
    expect(mixed.body.message).toContain("attendees.1.email");
    expect(sim.current.getMeeting(m.bookingUid)!.attendees).toHaveLength(1);
  });

  it("does not add an address twice (case-insensitive), so a retried request is harmless", async () => {
    const m = await bookedMeeting();
    const body = { attendees: [{ email: "Repeat@Example.org" }, { email: "repeat@example.org" }, { email: "FIRST.GUEST@example.org" }] };
    await call(`/conversations/meetings/${m.entityId}/attendees`, { method: "POST", key: m.apiKey, body });
    const again = await call(`/conversations/meetings/${m.entityId}/attendees`, { method: "POST", key: m.apiKey, body });
    expect(again.status).toBe(200);
    expect(again.body.attendees.map((a: { email: string }) => a.email)).toEqual(["first.guest@example.org", "Repeat@Example.org"]);
  });

  it("answers 409 MEETING_ALREADY_STARTED once the meeting has started", async () => {
    const m = await bookedMeeting({ startedAlready: true });
    const res = await call(`/conversations/meetings/${m.entityId}/attendees`, { method: "POST", key: m.apiKey, body: { attendees: [attendee(2)] } });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "MEETING_ALREADY_STARTED", message: expect.any(String) });
    expect(sim.current.getMeeting(m.bookingUid)!.attendees).toHaveLength(1);
    // Reading them still works.
    expect((await call(`/conversations/meetings/${m.entityId}/attendees`, { key: m.apiKey })).status).toBe(200);
  });

  it("answers 409 MEETING_CANCELLED on a cancelled meeting", async () => {
    const m = await bookedMeeting();
    expect((await call(`/conversations/meetings/${m.entityId}/cancel`, { method: "POST", key: m.apiKey })).status).toBe(200);
    const res = await call(`/conversations/meetings/${m.entityId}/attendees`, { method: "POST", key: m.apiKey, body: { attendees: [attendee(3)] } });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "MEETING_CANCELLED", message: expect.any(String) });
  });

  it("answers 404 MEETING_NOT_FOUND for an unknown entity", async () => {
    const m = await bookedMeeting();
    const res = await call(`/conversations/meetings/call.01nosuchcall/attendees`, { method: "POST", key: m.apiKey, body: { attendees: [attendee(4)] } });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe("MEETING_NOT_FOUND");
  });
});

describe("POST /conversations/meetings/{entityId}/cancel", () => {
  it("cancels at the provider first, answers cancelled, and the stored metadata is reconciled afterwards", async () => {
    const m = await bookedMeeting();
    const res = await call(`/conversations/meetings/${m.entityId}/cancel`, {
      method: "POST",
      key: m.apiKey,
      body: { cancellationReason: "Customer asked to move it", cancelSubsequentBookings: false },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ entityId: m.entityId, bookingUid: m.bookingUid, status: "cancelled" });
    expect(sim.current.getMeeting(m.bookingUid)).toMatchObject({ status: "Canceled", cancellationReason: "Customer asked to move it" });
    // Not within the request: the conversation still says booked until the reconciliation runs.
    expect((await storedDetails(m.entityId)).status).toBe("booked");

    expect(await reconcileMeetingStatus(db, { callId: m.entityId })).toEqual({ outcome: "updated", status: "cancelled" });
    const details = await storedDetails(m.entityId);
    expect(details).toMatchObject({ status: "cancelled", bookingUid: m.bookingUid, mode: "link", provider: "chili-piper" });
    expect(Date.parse(details.cancelledAt!)).not.toBeNaN();
    const [meetingRow] = await db.select().from(meetings).where(eq(meetings.callId, m.entityId));
    expect(meetingRow).toMatchObject({ status: "cancelled" });
    expect(await reconcileMeetingStatus(db, { callId: m.entityId })).toEqual({ outcome: "unchanged", status: "cancelled" });
  });

  it("accepts no body at all, and cancelling twice answers the same", async () => {
    const m = await bookedMeeting();
    const first = await call(`/conversations/meetings/${m.entityId}/cancel`, { method: "POST", key: m.apiKey });
    expect(first.status).toBe(200);
    const cancelsAtProvider = sim.current.requests.filter((r) => r.path.startsWith("/v1/org/meetings/cancel/")).length;
    const second = await call(`/conversations/meetings/${m.entityId}/cancel`, { method: "POST", key: m.apiKey, body: {} });
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(sim.current.requests.filter((r) => r.path.startsWith("/v1/org/meetings/cancel/")).length).toBe(cancelsAtProvider);
  });

  it("answers 404 MEETING_NOT_FOUND for an unknown entity and 400 for a malformed body", async () => {
    const m = await bookedMeeting();
    const unknown = await call(`/conversations/meetings/call.01nosuchcall/cancel`, { method: "POST", key: m.apiKey });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe("MEETING_NOT_FOUND");
    const bad = await call(`/conversations/meetings/${m.entityId}/cancel`, { method: "POST", key: m.apiKey, body: { cancelSubsequentBookings: "yes" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("INVALID_REQUEST");
    expect(sim.current.getMeeting(m.bookingUid)!.status).toBe("Active");
  });
});

describe("provider failures", () => {
  it("answers 503 PROVIDER_UNAVAILABLE when the provider is down, and changes nothing", async () => {
    const m = await bookedMeeting();
    sim.current.setDown(true);
    try {
      for (const [path, options] of [
        [`/conversations/meetings/${m.entityId}/attendees`, {}],
        [`/conversations/meetings/${m.entityId}/attendees`, { method: "POST", body: { attendees: [attendee(5)] } }],
        [`/conversations/meetings/${m.entityId}/cancel`, { method: "POST" }],
      ] as const) {
        const res = await call(path, { ...options, key: m.apiKey });
        expect(res.status, `${(options as { method?: string }).method ?? "GET"} ${path}`).toBe(503);
        expect(res.body).toEqual({ error: "PROVIDER_UNAVAILABLE", message: expect.any(String) });
      }
    } finally {
      sim.current.setDown(false);
    }
    expect(sim.current.getMeeting(m.bookingUid)).toMatchObject({ status: "Active", attendees: [expect.objectContaining({ email: "first.guest@example.org" })] });
    expect(await storedDetails(m.entityId)).toMatchObject({ status: "booked", bookingUid: m.bookingUid });
    expect((await call(`/conversations/meetings/${m.entityId}/attendees`, { key: m.apiKey })).status).toBe(200);
  });

  it("retries idempotent reads through a brief outage", async () => {
    const m = await bookedMeeting();
    sim.current.failNext({ status: 503, count: 1, path: "/attendees" });
    const res = await call(`/conversations/meetings/${m.entityId}/attendees`, { key: m.apiKey });
    expect(res.status).toBe(200);
  });

  it("answers 502 PROVIDER_ERROR when the provider fails, and 503 when it does not answer or drops the connection", async () => {
    const m = await bookedMeeting();
    sim.current.failNext({ status: 500, path: "/meetings/cancel/" });
    const failed = await call(`/conversations/meetings/${m.entityId}/cancel`, { method: "POST", key: m.apiKey });
    expect(failed.status).toBe(502);
    expect(failed.body).toEqual({ error: "PROVIDER_ERROR", message: expect.any(String) });
    expect(sim.current.getMeeting(m.bookingUid)!.status).toBe("Active");

    sim.current.failNext({ mode: "reset", path: "/attendees", count: 5 });
    const dropped = await call(`/conversations/meetings/${m.entityId}/attendees`, { key: m.apiKey });
    expect(dropped.status).toBe(503);
    expect(dropped.body.error).toBe("PROVIDER_UNAVAILABLE");
  });

  it("answers 503 when the organization's provider connection is gone", async () => {
    const m = await bookedMeeting();
    const { disconnectProvider } = await import("@/server/services/calendar/provider-connection");
    await disconnectProvider(db, { organizationId: m.organization.id });
    const res = await call(`/conversations/meetings/${m.entityId}/attendees`, { key: m.apiKey });
    expect(res.status).toBe(503);
    expect(res.body.error).toBe("PROVIDER_UNAVAILABLE");
  });
});

describe("the provider key", () => {
  it("appears in no API response and no log line of this file", () => {
    expect(providerKeys.length).toBeGreaterThan(5);
    expect(answered.length).toBeGreaterThan(20);
    const logged = logs.text();
    for (const key of providerKeys) {
      for (const text of answered) expect(text).not.toContain(key);
      expect(logged).not.toContain(key);
    }
  });
});
