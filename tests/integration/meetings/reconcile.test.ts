import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calls, meetings } from "@/db/schema";
import { reconcileMeeting } from "@/inngest/functions/reconcile-meeting";
import { bookMeetingForCall } from "@/server/services/calendar/book-meeting";
import { apiClient } from "../../helpers/api";
import { useTestDb } from "../../helpers/db";
import { startTestInngest, type TestInngest } from "../../helpers/inngest";
import { createBookingAgent, createCallToBook, createConnectedOrganization, useChiliPiperSimulator } from "./helpers";

const db = useTestDb();
const api = apiClient(db);
const sim = useChiliPiperSimulator();
let inngest: TestInngest;

beforeAll(async () => {
  inngest = await startTestInngest({ db, functions: [reconcileMeeting] });
});

afterAll(async () => {
  await inngest?.stop();
});

async function booked() {
  const org = await createConnectedOrganization(db, sim.current);
  const agent = await createBookingAgent(db, org.organization.id, "concierge");
  const call = await createCallToBook(db, { organizationId: org.organization.id, agentId: agent.id });
  const result = await bookMeetingForCall(db, { callId: call.id });
  if (result.status !== "booked") throw new Error(JSON.stringify(result));
  return { ...org, entityId: call.id, bookingUid: result.bookingUid };
}

async function stored(callId: string) {
  const [row] = await db.select({ details: calls.crmSchedulingDetails }).from(calls).where(eq(calls.id, callId));
  const [meeting] = await db.select().from(meetings).where(eq(meetings.callId, callId));
  return { details: row!.details, meeting: meeting! };
}

describe("cancel, then reconciliation by the reconcile-meeting function", () => {
  it("updates crmSchedulingDetails.status after the request, through the meeting/cancelled event", async () => {
    const m = await booked();
    const res = await api(`/conversations/meetings/${m.entityId}/cancel`, { method: "POST", key: m.apiKey, body: { cancellationReason: "No longer needed" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ entityId: m.entityId, bookingUid: m.bookingUid, status: "cancelled" });

    // The request itself left the stored metadata alone.
    expect((await stored(m.entityId)).details.status).toBe("booked");

    expect(await inngest.drain()).toBeGreaterThan(0);
    const after = await stored(m.entityId);
    expect(after.details).toMatchObject({ provider: "chili-piper", mode: "concierge", bookingUid: m.bookingUid, status: "cancelled" });
    expect(after.details.cancelledAt).toBe(sim.current.getMeeting(m.bookingUid)!.canceledAt);
    expect(after.meeting).toMatchObject({ status: "cancelled" });
  });

  it("retries while the provider is down, and reconciles once it is back", async () => {
    const m = await booked();
    expect((await api(`/conversations/meetings/${m.entityId}/cancel`, { method: "POST", key: m.apiKey })).status).toBe(200);
    sim.current.setDown(true);
    try {
      await inngest.drain();
      expect((await stored(m.entityId)).details.status).toBe("booked");
    } finally {
      sim.current.setDown(false);
    }
    await inngest.advance(10 * 60_000);
    expect((await stored(m.entityId)).details.status).toBe("cancelled");
  });

  it("sends no second reconciliation once the stored status says cancelled", async () => {
    const m = await booked();
    await api(`/conversations/meetings/${m.entityId}/cancel`, { method: "POST", key: m.apiKey });
    await inngest.drain();
    expect((await stored(m.entityId)).details.status).toBe("cancelled");
    const again = await api(`/conversations/meetings/${m.entityId}/cancel`, { method: "POST", key: m.apiKey });
    expect(again.status).toBe(200);
    expect(await inngest.drain()).toBe(0);
  });
});
