import { describe, expect, it } from "vitest";
import { bookMeetingForCall } from "@/server/services/calendar/book-meeting";
import { cancelMeeting } from "@/server/services/meetings/cancel-meeting";
import { reconcileMeetingStatus } from "@/server/services/meetings/reconcile-meeting";
import { useTestDb } from "../../helpers/db";
import { createBookingAgent, createCallToBook, createConnectedOrganization, useChiliPiperSimulator } from "../meetings/helpers";
import { apiKeyCaller, consoleCaller } from "./helpers";

const db = useTestDb();
const sim = useChiliPiperSimulator();

async function bookedMeeting(options: { startedAlready?: boolean } = {}) {
  const org = await createConnectedOrganization(db, sim.current);
  const agent = await createBookingAgent(db, org.organization.id, "link");
  const call = await createCallToBook(db, { organizationId: org.organization.id, agentId: agent.id, email: "first.guest@example.org", name: "First Guest" });
  const now = options.startedAlready ? new Date(Date.now() - 5 * 86_400_000) : undefined;
  const booked = await bookMeetingForCall(db, { callId: call.id, now, preferredStartTime: now });
  if (booked.status !== "booked") throw new Error(`booking failed: ${JSON.stringify(booked)}`);
  return { ...org, entityId: call.id, bookingUid: booked.bookingUid };
}

describe("meetings.state", () => {
  it("says the stored status lags behind a cancel until the reconciliation has run", async () => {
    const meeting = await bookedMeeting();
    const support = await consoleCaller(db, meeting.organization.id, "support");

    const before = await support.meetings.state({ entityId: meeting.entityId });
    expect(before).toMatchObject({ entityId: meeting.entityId, bookingUid: meeting.bookingUid, storedStatus: "booked", reconciled: true, canAddAttendees: true });
    expect(before.provider.status).toBe("active");
    expect(Date.parse(before.provider.startTime)).toBeGreaterThan(Date.now());

    // The provider confirms the cancel; the reconciliation is requested but has not run yet.
    let requested: string | null = null;
    await cancelMeeting(db, { organizationId: meeting.organization.id, entityId: meeting.entityId, cancellationReason: "Customer asked", notifyCancelled: async (callId) => void (requested = callId) });
    expect(requested).toBe(meeting.entityId);
    const pending = await support.meetings.state({ entityId: meeting.entityId });
    expect(pending).toMatchObject({ storedStatus: "booked", reconciled: false, canAddAttendees: false, provider: { status: "cancelled" } });

    await reconcileMeetingStatus(db, { callId: meeting.entityId });
    const after = await support.meetings.state({ entityId: meeting.entityId });
    expect(after).toMatchObject({ storedStatus: "cancelled", reconciled: true, canAddAttendees: false, provider: { status: "cancelled" } });
  });

  it("does not offer adding attendees once the meeting has started", async () => {
    const meeting = await bookedMeeting({ startedAlready: true });
    const member = await consoleCaller(db, meeting.organization.id, "member");
    expect(await member.meetings.state({ entityId: meeting.entityId })).toMatchObject({ canAddAttendees: false, reconciled: true });
  });

  it("answers MEETING_NOT_FOUND for a call without a meeting and for other organizations; refuses API keys", async () => {
    const meeting = await bookedMeeting();
    const other = await createConnectedOrganization(db, sim.current);
    const agent = await createBookingAgent(db, other.organization.id, "link");
    const unbooked = await createCallToBook(db, { organizationId: other.organization.id, agentId: agent.id });
    const outsider = await consoleCaller(db, other.organization.id, "admin");
    for (const entityId of [meeting.entityId, unbooked.id, "call.unknown"]) {
      await expect(outsider.meetings.state({ entityId })).rejects.toMatchObject({ cause: { code: "MEETING_NOT_FOUND" } });
    }
    await expect(apiKeyCaller(db, meeting.apiKey).meetings.state({ entityId: meeting.entityId })).rejects.toMatchObject({
      cause: { code: "FORBIDDEN" },
    });
  });
});

describe("meeting changes from the console (shared meetings procedures)", () => {
  it("let support add attendees and keep members read-only", async () => {
    const meeting = await bookedMeeting();
    const member = await consoleCaller(db, meeting.organization.id, "member");
    const support = await consoleCaller(db, meeting.organization.id, "support");

    const listed = await member.meetings.listAttendees({ entityId: meeting.entityId });
    expect(listed.attendees.map((a) => a.email)).toEqual(["first.guest@example.org"]);
    await expect(member.meetings.addAttendees({ entityId: meeting.entityId, attendees: [{ email: "x@example.org" }] })).rejects.toMatchObject({
      cause: { code: "FORBIDDEN" },
    });
    await expect(member.meetings.cancel({ entityId: meeting.entityId })).rejects.toMatchObject({ cause: { code: "FORBIDDEN" } });

    const added = await support.meetings.addAttendees({ entityId: meeting.entityId, attendees: [{ email: "second.guest@example.org", name: "Second Guest", timeZone: "Europe/Berlin" }] });
    expect(added.attendees.map((a) => a.email)).toEqual(["first.guest@example.org", "second.guest@example.org"]);
    // The form shows the API's own validation messages, field by field.
    await expect(support.meetings.addAttendees({ entityId: meeting.entityId, attendees: [{ email: "not-an-email", timeZone: "Mars/Olympus" }] })).rejects.toMatchObject({
      cause: { issues: [expect.objectContaining({ path: ["attendees", 0, "email"] }), expect.objectContaining({ path: ["attendees", 0, "timeZone"] })] },
    });
  });
});
