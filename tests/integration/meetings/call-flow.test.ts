import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reconcileMeeting } from "@/inngest/functions/reconcile-meeting";
import type { BookingMode } from "@/db/schema";
import { validateBookingConfig } from "@/server/services/calendar/booking-config";
import { connectProvider } from "@/server/services/calendar/provider-connection";
import { SIMULATOR_CRM_CONTACT_DOMAIN, simulatorBookingConfig } from "@/server/services/calendar/simulator-fixtures";
import { apiClient } from "../../helpers/api";
import { useTestDb } from "../../helpers/db";
import { startTestInngest, type TestInngest } from "../../helpers/inngest";
import { createTestAgent, createTestOrganization } from "../../factories";
import { AGENT_DEFINITIONS, callStep, callsOf, enroll, startCallEngine, type CallEngineHarness } from "../call-engine/harness";
import { useChiliPiperSimulator } from "./helpers";

const db = useTestDb();
const api = apiClient(db);
const sim = useChiliPiperSimulator();
let engine: CallEngineHarness;

beforeAll(async () => {
  process.env.DATA_DIR = mkdtempSync(path.join(os.tmpdir(), "meetings-call-flow-"));
  engine = await startCallEngine(db, { start: new Date() });
});

afterAll(async () => {
  await engine?.stop();
});

/** `inngest.send()` lands on the newest runner of the process: one with reconcile-meeting, only while needed. */
async function withReconciler<T>(work: (runner: TestInngest) => Promise<T>): Promise<T> {
  const runner = await startTestInngest({ db, functions: [reconcileMeeting], clock: engine.clock });
  try {
    return await work(runner);
  } finally {
    await runner.stop();
  }
}

/** An organization connected to the simulator, with an engine agent whose booking mode was validated on save. */
async function agentFor(mode: BookingMode) {
  const { organization, apiKey } = await createTestOrganization(db, { monthlyCreditAllocation: 10_000 });
  await connectProvider(db, { organizationId: organization.id, apiKey: sim.current.createApiKey("full-access") });
  const bookingConfig = await validateBookingConfig(db, { organizationId: organization.id, bookingConfig: simulatorBookingConfig(mode) });
  const agent = await createTestAgent(db, organization.id, { name: "Ava", steps: [callStep()], bookingConfig, ...AGENT_DEFINITIONS });
  return { organization, apiKey, agent };
}

describe("a goal-completed call (number ending in 0) books through the agent's mode", () => {
  it("link agent: the call books a meeting whose attendees can be listed, added to, and which can be cancelled via /api/v1", async () => {
    const { apiKey, agent } = await agentFor("link");

    const enrolled = await enroll(db, { agent, phoneNumber: "+12025550170", email: "caller@example.org", now: engine.clock.now() });
    await engine.settle();
    const [call] = await callsOf(db, enrolled.sequenceId);
    expect(call!.resultType).toBe("Goal Completed");
    expect(call!.followUpMeetingDetails).toMatchObject({ hostEmail: expect.stringMatching(/@sim-acme\.example$/), meetingLink: expect.stringMatching(/^https:/) });
    expect(call!.crmSchedulingDetails).toMatchObject({ provider: "chili-piper", mode: "link", status: "booked" });
    expect(call!.agentActions).toContainEqual(expect.objectContaining({ actionKey: "book_meeting", status: "completed" }));

    const entity = `/conversations/meetings/${call!.id}`;
    const listed = await api(`${entity}/attendees`, { key: apiKey });
    expect(listed.status).toBe(200);
    expect(listed.body.attendees).toEqual([expect.objectContaining({ email: "caller@example.org", name: "Jane Doe" })]);
    const added = await api(`${entity}/attendees`, { method: "POST", key: apiKey, body: { attendees: [{ email: "boss@example.org", name: "The Boss" }] } });
    expect(added.status).toBe(200);
    expect(added.body.attendees.map((a: { email: string }) => a.email)).toEqual(["caller@example.org", "boss@example.org"]);
    await withReconciler(async (reconciler) => {
      const cancelled = await api(`${entity}/cancel`, { method: "POST", key: apiKey });
      expect(cancelled.body).toEqual({ entityId: call!.id, bookingUid: call!.crmSchedulingDetails.bookingUid, status: "cancelled" });
      expect(await reconciler.drain()).toBeGreaterThan(0);
    });
    // What integrators read back: the conversation's metadata now says cancelled.
    const meta = await api(`/conversations/metadata/${enrolled.sequenceId}`, { key: apiKey });
    expect(meta.status).toBe(200);
    expect(meta.body.metadata[0].crmSchedulingDetails).toMatchObject({ bookingUid: call!.crmSchedulingDetails.bookingUid, status: "cancelled", cancelledAt: expect.any(String) });
  });

  it("crm and concierge agents book too; a CRM caller outside the CRM gets no meeting and the call still completes", async () => {
    for (const [mode, email, booked] of [
      ["crm", `buyer@${SIMULATOR_CRM_CONTACT_DOMAIN}`, true],
      ["concierge", "anyone@example.org", true],
      ["crm", "unknown@example.org", false],
    ] as const) {
      const { agent } = await agentFor(mode);
      const enrolled = await enroll(db, { agent, phoneNumber: "+12025550180", email, now: engine.clock.now() });
      await engine.settle();
      const [call] = await callsOf(db, enrolled.sequenceId);
      expect(call!.resultType, `${mode} ${email}`).toBe("Goal Completed");
      if (booked) {
        expect(call!.crmSchedulingDetails, `${mode} ${email}`).toMatchObject({ mode, status: "booked" });
      } else {
        expect(call!.followUpMeetingDetails).toBeNull();
        expect(call!.crmSchedulingDetails).toEqual({});
        expect(call!.agentActions).toContainEqual(expect.objectContaining({ actionKey: "book_meeting", status: "failed", metadata: expect.objectContaining({ errorCode: "CRM_NO_MATCH" }) }));
      }
    }
  });
});
